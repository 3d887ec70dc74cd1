package inspect_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
)

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Standard input given as "-" to llvm-offload-binary (its extraction and
// its packaging's file=-) and to llvm-offload-wrapper was read whole into
// memory: 300 MiB through a pipe took 300 MiB. It is spooled to a
// temporary file now, as the bundler spools its streams, so each command
// stays within the caps whatever the stream's length.
func TestStdinSpooled(t *testing.T) {
	dir := t.TempDir()
	const n = 300 << 20
	for _, c := range []struct {
		argv []string
		out  string // what it writes, n bytes and more; "" for nothing
	}{
		{[]string{"llvm-offload-binary", "-"}, ""},
		{[]string{"llvm-offload-binary", "-o", "packed.bin", "--image=file=-,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip"}, "packed.bin"},
		{[]string{"llvm-offload-wrapper", "--kind=hip", "-", "-o", "wrapped.bc"}, "wrapped.bc"},
	} {
		prog := filepath.Join(dir, c.argv[0])
		os.Symlink(offloadBin, prog)
		r, err := capped.RunInput(io.LimitReader(zeros{}, n), dir, append(os.Environ(), "TMPDIR="+dir), capped.MaxRSS, capped.MaxTime, prog, c.argv[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		if r.Over != "" || r.Code != 0 {
			t.Errorf("%q reading %d bytes of stdin: %v", c.argv, n, r)
		}
		if c.out != "" {
			if fi, err := os.Stat(filepath.Join(dir, c.out)); err != nil || fi.Size() < n {
				t.Errorf("%q: %s is not all of stdin: %v", c.argv, c.out, err)
			}
			os.Remove(filepath.Join(dir, c.out))
		}
		t.Logf("%q: %v CPU, %d MiB", c.argv, r.CPU, r.PeakRSS>>20)
	}
}
