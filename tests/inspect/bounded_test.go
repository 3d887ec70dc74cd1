package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
	"github.com/rules-offload/rules_offload/internal/hostile"
)

// The tests here run each command on a hostile input under issue 27's
// caps (256 MiB resident, 2 s): it must finish, or refuse with a clear
// error, within them.

// runCapped runs the offload binary as argv[0] (a personality: a link to
// it) in dir, with TMPDIR in dir, under the caps; a command that passes
// one fails the test.
func runCapped(t *testing.T, dir string, argv ...string) capped.Result {
	t.Helper()
	prog := offloadBin
	if argv[0] != "offload" {
		prog = filepath.Join(dir, argv[0])
		os.Symlink(offloadBin, prog)
	}
	r, err := capped.Run(dir, append(os.Environ(), "TMPDIR="+dir), capped.MaxRSS, capped.MaxTime, prog, argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Over != "" {
		t.Errorf("%q passed the %s cap: %v", argv, r.Over, r)
	}
	return r
}

// Row 1: COFF objects whose section names all run to the end of a long
// string table, the review's 16.8 MB object of 200 such sections (3.3 GB
// RSS; our llvm-offload-binary > 120 s; llvm-offload-binary-22: 0.2 s,
// 58 MB) and its 65,534-section variant in a 20 KB zlib CCOB (asked ~768
// GiB).
func TestCOFFLongSectionNamesBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "long.obj"), hostile.COFFLongNames(200, 16<<20, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "long.ccob"), hostile.CCOBZlib(hostile.COFFLongNames(65534, 12<<20, 0)), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "inspect", "long.obj"}, 0, "coff (COFF object, x86-64)"},
		{[]string{"offload", "extract", "--list", "long.obj"}, 1, "no device image matches the selection in long.obj"},
		{[]string{"llvm-offload-binary", "long.obj"}, 0, ""},
		{[]string{"offload", "inspect", "long.ccob"}, 0, "coff (COFF object, x86-64)"},
		{[]string{"offload", "extract", "--list", "long.ccob"}, 1, "no device image matches the selection in long.ccob"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
}
