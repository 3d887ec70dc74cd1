package openmp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// offloadBin is the offload command built for this package by TestMain;
// clangWrapper is a link to it named clang-offload-wrapper.
var offloadBin, clangWrapper string

func TestMain(m *testing.M) {
	os.Exit(llvmtest.Main(m, func(dir, bin string) error {
		offloadBin = bin
		clangWrapper = filepath.Join(dir, "clang-offload-wrapper")
		return os.Symlink(bin, clangWrapper)
	}, "clang-16", "clang-22", "gcc"))
}

// TestCLIRegistrationRuns is the runtime proof through the command line a
// build uses: `offload wrap --emit=obj` (no compiler at all), `--emit=c`
// compiled by gcc, and the binary invoked as clang-offload-wrapper with an
// --offload-arch, writing an object and bitcode (compiled by clang-22);
// each program must run its target region on the device.
func TestCLIRegistrationRuns(t *testing.T) {
	s, _ := build(t)
	wrap := []string{"wrap", "--kind=openmp", "--entries=legacy", "--triple=" + offload}
	s.must(offloadBin, append(wrap, "--emit=obj", "-o", "cli-obj.o", "device.so")...)
	s.must(offloadBin, append(wrap, "--emit=c", "-o", "cli.c", "device.so")...)
	s.must("gcc", "-c", "-O2", "-Wall", "-Wextra", "-Werror", "cli.c", "-o", "cli-c.o")
	s.must(clangWrapper, "-target", offload, "--offload-arch=x86-64", "-o", "cli-legacy.o", "device.so")
	s.must(clangWrapper, "-target", offload, "--offload-arch=x86-64", "-o", "cli-legacy.bc", "device.so")
	s.must("clang-22", "-c", "cli-legacy.bc", "-o", "cli-bc.o")
	for _, obj := range []string{"cli-obj.o", "cli-c.o", "cli-legacy.o", "cli-bc.o"} {
		prog := "prog-" + obj[:len(obj)-2]
		s.link(prog, "host.o", obj)
		if out, err := s.exec(prog); err != nil || out != wantRun {
			t.Errorf("%s: %v, printed %q; want %q", obj, err, out, wantRun)
		}
	}
}
