package inspect

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// coffPackage is two OffloadBinaries back to back, as a package is.
func coffPackage(t testing.TB) []byte {
	var b bytes.Buffer
	for _, arch := range []string{"gfx906", "gfx90a:xnack+"} {
		img := "image for " + arch
		kv := []offloadbin.KV{{Key: "arch", Value: arch}, {Key: "triple", Value: "amdgcn-amd-amdhsa"}}
		if _, err := offloadbin.Write(&b, offloadbin.ImageObject, offloadbin.OffloadOpenMP, 0, kv, strings.NewReader(img), int64(len(img))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// coffWith lays out an x86-64 COFF object of the named sections, each
// holding data (nil: no contents in the file). It returns the object and
// the file offset of each section's data.
func coffWith(names []string, data [][]byte) ([]byte, []int64) {
	secs := make([]hostile.COFFSection, len(names))
	for i, n := range names {
		secs[i] = hostile.COFFSection{Name: n, Data: data[i]}
	}
	return hostile.COFFObject(0x8664, 0, false, secs)
}

// A COFF object's .llvm.offloading* sections are described as ELF
// sections are, at their offsets in the file; other sections, and
// sections with no contents in the file, are not.
func TestCOFFObject(t *testing.T) {
	pkg := coffPackage(t)
	obj, offs := coffWith([]string{".text", ".llvm.offloading", ".llvm.offload", ".llvm.offloading$b", ".llvm.offloadingX"},
		[][]byte{{0xc3}, pkg, pkg, pkg, nil})
	n := inspectBytes(obj, Options{})
	if n.Failed() || n.Format != "coff" || n.Detail != "COFF object, x86-64" || len(n.Children) != 2 {
		t.Fatalf("got %s", dump(n))
	}
	for i, c := range n.Children {
		name := []string{".llvm.offloading", ".llvm.offloading$b"}[i]
		off := offs[[]int{1, 3}[i]]
		if c.Name != name || c.Format != "offload-binary" || c.Offset != off || c.Size != int64(len(pkg)) ||
			c.Detail != "section "+name+": 2 images" || len(c.Children) != 2 {
			t.Fatalf("section %d: %s", i, dump(c))
		}
		if im := c.Children[1]; im.Entry.TargetID != "gfx90a:xnack+" || im.Entry.OffloadKind != "openmp" ||
			string(obj[im.Offset:im.Offset+im.Size]) != "image for gfx90a:xnack+" {
			t.Errorf("section %d, image 1: %s", i, dump(im))
		}
	}
}

// A damaged COFF object is reported at the offset of what is wrong.
func TestCOFFDamaged(t *testing.T) {
	obj, _ := coffWith([]string{".text", ".llvm.offloading"}, [][]byte{{0xc3}, coffPackage(t)})
	past := bytes.Clone(obj)
	binary.LittleEndian.PutUint32(past[60+16:], uint32(len(obj)))
	for _, tc := range []struct {
		name, want string
		in         []byte
	}{
		{"section table", "at offset 20 (file): COFF object: section table past end of file", obj[:80]},
		{"section data", "at offset 60 (file): COFF object: section .llvm.offloading past end of file", past},
	} {
		n := inspectBytes(tc.in, Options{})
		if n.Format != "coff" || n.Error != tc.want || len(n.Children) != 0 {
			t.Errorf("%s: %s", tc.name, dump(n))
		}
	}
}

// Data that starts with two zero bytes (LLVM's unknown machine) is not
// taken for a COFF object inside containers: it would fail to parse.
func TestZerosAreNotCOFF(t *testing.T) {
	if n := inspectBytes(make([]byte, 64), Options{}); n.Format != "data" || n.Failed() {
		t.Fatalf("got %s", dump(n))
	}
}
