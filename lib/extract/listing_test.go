package extract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// listing is what a walk hands on, as extract --list prints it, or its
// error.
func listing(opt Options, in []byte) string {
	w := NewWalker(opt)
	defer w.Close()
	var b strings.Builder
	err := w.Walk(bytes.NewReader(in), int64(len(in)), "in", func(im *Image) error {
		fmt.Fprintf(&b, "%s %s %d %v\n", im.TargetID, im.ImageKind, im.Size, im.Where)
		return nil
	})
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// A walk for sizes only lists what a full walk lists, for records it can
// list from their headers and for those it must decode whole (or refuse);
// and it lists a record declaring 4 GiB at once.
func TestSizesOnlyListsAsFullWalk(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "openmp-amdgcn-amd-amdhsa--gfx90a"}
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 57)...)
	body := func(payloads ...[]byte) []byte {
		sizes := make([]int64, len(payloads))
		for i, p := range payloads {
			sizes[i] = int64(len(p))
		}
		return append(hostile.BundleHeader(ids[:len(payloads)], sizes), bytes.Join(payloads, nil)...)
	}
	nested := hostile.CCOBZlib(body(nil, hostile.CCOBZlib(body(nil, elf))))
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"elf and bitcode", hostile.CCOBZlib(body(nil, elf, []byte("BC\xc0\xde more")))},
		{"large entry first", hostile.CCOBZlib(body(nil, bytes.Repeat([]byte("x"), 1<<20), elf))},
		{"two records", append(append(hostile.CCOBZlib(body(nil, elf)), 0, 0), hostile.CCOBZlib(body(nil, elf))...)},
		{"nested compression", nested},
		{"entry past the end", hostile.CCOBZlib(hostile.BundleHeader(ids[:2], []int64{0, 50}))},
		{"entry past the listing's prefix", hostile.CCOBZlib(body(nil, bytes.Repeat([]byte("x"), maxListPrefix+1), elf))},
	} {
		full := listing(Options{}, c.in)
		if got := listing(Options{SizesOnly: true}, c.in); got != full {
			t.Errorf("%s: sizes only:\n%s\nfull walk:\n%s", c.name, got, full)
		}
	}
	const device = 4<<30 - 1024
	big := hostile.CCOB(hostile.BundleHeader(ids[:2], []int64{0, device}), device)
	want := fmt.Sprintf(" none 0 [in ccob@0 %s]\ngfx906 none %d [in ccob@0 %s]\n", ids[0], device, ids[1])
	if got := listing(Options{SizesOnly: true}, big); got != want {
		t.Errorf("4 GiB record: got %q, want %q", got, want)
	}
}
