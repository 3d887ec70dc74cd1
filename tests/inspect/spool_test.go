package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An input that is not a regular file is spooled to TMPDIR before it is
// read; /dev/zero has no end, and filled TMPDIR. The spool is bounded by
// the input's budget (--max-uncompressed-size, default 4 GiB): past it
// every bundler job refuses the input, naming it and the option, and
// leaves nothing behind.
func TestStreamInputBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "host.o"), []byte("host"), 0o644)
	const limit = "--max-uncompressed-size=16M"
	targets := "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906"
	for _, argv := range [][]string{
		{"clang-offload-bundler", "-list", "-type=o", "-input=/dev/zero", limit},
		{"clang-offload-bundler", "-unbundle", "-type=o", "-input=/dev/zero", targets, "-output=a", "-output=b", limit},
		{"clang-offload-bundler", "-type=o", "-input=host.o", "-input=/dev/zero", targets, "-output=out.o", limit},
		{"clang-offload-bundler", "-unbundle", "-type=a", "-input=/dev/zero", targets, "-output=a.a", "-output=b.a", limit},
	} {
		r := runCapped(t, dir, argv...)
		want := "'/dev/zero': not a regular file, and longer than 16777216 bytes, the most read from such an input; raise the limit with --max-uncompressed-size"
		if r.Code != 1 || !strings.Contains(r.Output, want) {
			t.Errorf("%q: %v; want exit 1 saying %q", argv, r, want)
		}
		names, _ := os.ReadDir(dir)
		for _, n := range names {
			if n.Name() != "host.o" && n.Name() != argv[0] {
				t.Errorf("%q left %s", argv, n.Name())
			}
		}
	}
}
