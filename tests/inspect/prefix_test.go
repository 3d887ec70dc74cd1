package inspect_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// The decoded prefixes of compressed records (what a listing, or
// inspect's first look, keeps of each in memory) live as long as their
// record's walk, not the input's.

// 24 zstd records of 640 bytes, each decoding to 16 MiB: a bundle whose
// one entry is its last 64 bytes, so that a listing keeps all 16 MiB of
// each to read the entry's head. extract --list kept every one (the
// review: 1.36 GB from 40 such records, 25.8 KB; killed at the cap after
// the 7th here); it now keeps one at a time.
func TestListingKeepsOnePrefix(t *testing.T) {
	dir := t.TempDir()
	const size = 16 << 20
	id := "hipv4-amdgcn-amd-amdhsa--gfx906"
	head := hostile.Bundle([]hostile.BundleEntry{{ID: id, Offset: size - 64, Size: 64}}, nil)
	rec := hostile.CCOB(head, size-int64(len(head)))
	var in []byte
	for range 24 {
		in = append(in, rec...)
	}
	os.WriteFile(filepath.Join(dir, "many.bin"), in, 0o644)
	r := runCapped(t, dir, "offload", "extract", "--list", "many.bin")
	last := fmt.Sprintf("many-hipv4-amdgcn-amd-amdhsa-gfx906.23.bin\t64\tmany.bin: ccob@%d: %s\n", 23*len(rec), id)
	if r.Code != 0 || r.Lines != 24 || !strings.HasSuffix(r.Output, last) {
		t.Errorf("%v; want exit 0 listing 24 images, the last %q", r, last)
	}
}

// Compressed records nested 8 deep, each payload the next record and 16
// MiB of zero padding: the padding runs past the 16 MiB prefix that is
// looked at first, at every level. Each level's look was done again on
// the whole payload, and so each level below it twice as often (the
// review: 6.2 KB, 23 s in inspect); each is now looked at once.
func TestNestedPrefixLookedAtOnce(t *testing.T) {
	dir := t.TempDir()
	id := "hipv4-amdgcn-amd-amdhsa--gfx906"
	leaf := append(hostile.BundleHeader([]string{id}, []int64{4}), "code"...)
	os.WriteFile(filepath.Join(dir, "chain.bin"), hostile.PaddedChain(8, 16<<20, leaf), 0o644)
	r := runCapped(t, dir, "offload", "inspect", "--allow-nested-compression", "chain.bin")
	if r.Code != 0 || strings.Count(r.Output, "hash 0x") != 8 || strings.Contains(r.Output, "MISMATCH") || !strings.Contains(r.Output, id+": data  size 4") {
		t.Errorf("inspect: %v; want exit 0 describing 8 records and the bundle", r)
	}
	r = runCapped(t, dir, "offload", "extract", "--list", "--allow-nested-compression", "chain.bin")
	if r.Code != 0 || r.Lines != 1 || !strings.Contains(r.Output, "\t4\tchain.bin: ccob@0: ccob@0: ccob@0: ccob@0: ccob@0: ccob@0: ccob@0: ccob@0: "+id+"\n") {
		t.Errorf("extract --list: %v; want exit 0 listing the one image", r)
	}
}
