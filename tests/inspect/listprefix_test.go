package inspect_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Four compressed records of 1 GiB of zeros each, back to back (131 KiB,
// within the 4 GiB budget): -list decoded each whole after its first bytes
// showed it holds no bundle (12.8 s in the review), to list nothing. The
// first bytes of a record's payload now decide it, as they decide it on
// the general path; a record holding a bundle still lists its IDs.
func TestListNoBundleReadsPrefix(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "zeros.bin"), bytes.Repeat(hostile.CCOB(nil, 1<<30), 4), 0o644)
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"}
	mixed := append(hostile.CCOB(nil, 1<<30), hostile.CCOBZlib(hostile.BundleHeader(ids, []int64{0, 0}))...)
	os.WriteFile(filepath.Join(dir, "mixed.bin"), mixed, 0o644)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=zeros.bin"}, ""},
		{[]string{"clang-offload-bundler", "-list", "-type=bc", "-input=zeros.bin"}, ""},
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=mixed.bin"}, ids[1] + "\n" + ids[0] + "\n"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != 0 || r.Output != c.want {
			t.Errorf("%q: %v; want exit 0 printing %q", c.argv, r, c.want)
		}
	}
}
