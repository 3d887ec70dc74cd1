package container

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/bundle"
)

// An input walked As a format is read as that format whatever its head
// says, and that format's reader says why it is not one; recognised, the
// same bytes are data, not looked inside.
func TestWalkAs(t *testing.T) {
	in := []byte("junk, no container")
	if got := walkRecorded(t, in, WalkOptions{}); strings.Join(got, " ") != "0:in:data" {
		t.Errorf("recognised: %q", got)
	}
	got := walkRecorded(t, in, WalkOptions{As: FormatNVFatbin})
	if len(got) != 2 || got[0] != "0:in:cuda-fatbin" || !strings.HasPrefix(got[1], "error in: nvfatbin: bad magic") {
		t.Errorf("as a fat binary: %q", got)
	}
	// A CCOB walked as a binary bundle: the bundle reader's error, not the
	// CCOB decoded.
	ccob := hostile.CCOBZlib(append(hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{4}), "code"...))
	var r refusal
	Walk(bytes.NewReader(ccob), int64(len(ccob)), "in", WalkOptions{As: FormatBundle}, &r)
	if !errors.Is(r.err, bundle.ErrNotBundle) || r.parts != 1 {
		t.Errorf("a CCOB as a bundle: %d parts, %v", r.parts, r.err)
	}
}

// refusal notes the parts met and the input's error.
type refusal struct {
	parts int
	err   error
}

func (r *refusal) Enter(p *Part) (bool, error) { r.parts++; return true, nil }
func (r *refusal) Leave(p *Part, err error) error {
	if p.Parent == nil {
		r.err = err
	}
	return nil
}

// Declared sums what a container's compressed pieces declare, from the
// format table: a fat binary's compressed entries, a compressed
// OffloadBinary's, a CCOB's; nothing for a format that compresses none.
func TestDeclared(t *testing.T) {
	fb := hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 1, Arch: 90, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx")), Inflated: 3},
		{Kind: 2, Arch: 90, Header: 72, Payload: []byte("stored")},
		{Kind: 1, Arch: 80, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx80")), Inflated: 5},
	})
	ob := hostile.OffloadBinaryBomb(1000, "gfx906")
	leaf := append(hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{4}), "code"...)
	for _, c := range []struct {
		f    Format
		in   []byte
		want uint64
	}{
		{FormatNVFatbin, fb, 8},
		{FormatNVFatbin, fb[:len(fb)-1], 0}, // cut: its header's size is past the end
		{FormatOffloadBinary, ob, 1168},     // the image after 168 bytes of entry and strings
		{FormatCCOB, hostile.CCOBZlib(leaf), uint64(len(leaf))},
		{FormatBundle, leaf, 0},
		{FormatNone, fb, 0},
	} {
		if got := Declared(c.f, bytes.NewReader(c.in), int64(len(c.in))); got != c.want {
			t.Errorf("%v of %d bytes: declared %d, want %d", c.f, len(c.in), got, c.want)
		}
	}
}
