package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// errorsIn lists the errors in the tree under n.
func errorsIn(n *Node) []string {
	var out []string
	if n.Error != "" {
		out = append(out, n.Error)
	}
	for _, c := range n.Children {
		out = append(out, errorsIn(c)...)
	}
	return out
}

// levels is the depth of the tree under n, n counting as one.
func levels(n *Node) int {
	most := 0
	for _, c := range n.Children {
		most = max(most, levels(c))
	}
	return 1 + most
}

func inspectBytes(in []byte, opt Options) *Node {
	return Inspect(bytes.NewReader(in), int64(len(in)), "in", opt)
}

// A compressed OffloadBinary inside a CCOB is compressed data inside
// compressed data: reported from its header, not inflated. Were it
// inflated, its 1 GiB would exceed the 512 MiB budget instead.
func TestCompressedOffloadBinaryInCCOBNotInflated(t *testing.T) {
	in := hostile.CCOB(hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a"), 0)
	errs := errorsIn(inspectBytes(in, Options{MaxUncompressedSize: 512 << 20}))
	if len(errs) != 1 || !strings.Contains(errs[0], "compressed data inside compressed data") ||
		!strings.Contains(errs[0], "--allow-nested-compression") {
		t.Fatalf("errors %q; want one saying the binary is nested compression, naming the flag", errs)
	}
	errs = errorsIn(inspectBytes(in, Options{MaxUncompressedSize: 512 << 20, AllowNestedCompression: true}))
	if len(errs) != 1 || !strings.Contains(errs[0], "would exceed 536870912 bytes") ||
		!strings.Contains(errs[0], "raise the limit with --max-uncompressed-size") {
		t.Fatalf("allowed: errors %q; want the budget exceeded, with the hint", errs)
	}
}

// A text bundle → CCOB → text bundle … chain 200 levels deep gives a tree
// of bounded depth: inspect lists text bundle entries without looking
// inside them today; should it ever look inside, the depth limit must count
// those levels too. Each of the 16 levels the limit admits adds at most
// two to the tree (a text bundle's entry is a node of its own), hence 34.
func TestTextChainBounded(t *testing.T) {
	for _, nested := range []bool{false, true} {
		n := inspectBytes(hostile.TextChain(100), Options{AllowNestedCompression: nested})
		if got := levels(n); got > 2*17 {
			t.Errorf("nested %v: a tree %d levels deep, want at most %d", nested, got, 2*17)
		}
	}
}

// A compressed OffloadBinary spilled to a temporary file is closed once
// its section is described, not when the whole input is: two archive
// members of 20 MiB each never hold two files.
func TestSpillClosedAfterSection(t *testing.T) {
	bin := hostile.OffloadBinaryBomb(offloadbin.SpillSize+4<<20, "gfx90a")
	var lib bytes.Buffer
	err := ar.WriteArchive(&lib, []ar.WriterMember{
		{Name: "a.o", Size: int64(len(bin)), Data: bytes.NewReader(bin)},
		{Name: "b.o", Size: int64(len(bin)), Data: bytes.NewReader(bin)},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(Options{TempDir: t.TempDir()})
	n := w.walk(bytes.NewReader(lib.Bytes()), int64(lib.Len()), "lib.a")
	if errs := errorsIn(n); len(errs) != 0 {
		t.Fatal(errs)
	}
	if w.temps.Len() != 0 {
		t.Errorf("%d spill files still open after the walk", w.temps.Len())
	}
}

// Compressed records side by side — two compressed HIP objects in a
// static library — are each a layer of compressed data only while they
// are walked: the second is described, not refused as nested in the
// first (which it was while the walk of a record's prefix kept a layer).
func TestSiblingCCOBsNotNested(t *testing.T) {
	c := hostile.CCOBZlib(append(hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{4}), "code"...))
	var lib bytes.Buffer
	err := ar.WriteArchive(&lib, []ar.WriterMember{
		{Name: "a.o", Size: int64(len(c)), Data: bytes.NewReader(c)},
		{Name: "b.o", Size: int64(len(c)), Data: bytes.NewReader(append([]byte(nil), c...))},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := inspectBytes(lib.Bytes(), Options{})
	if errs := errorsIn(n); len(errs) != 0 {
		t.Fatalf("errors %q; want both members described", errs)
	}
	for _, m := range n.Children {
		if m.Format != "ccob" || len(m.Children) != 1 || m.Children[0].Format != "bundle" {
			t.Errorf("member %s: %s with %d children; want a ccob holding a bundle", m.Name, m.Format, len(m.Children))
		}
	}
}
