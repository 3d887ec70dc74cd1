package openmp

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// offloadBinaryMagic starts every OffloadBinary (llvm/Object/OffloadBinary.h).
var offloadBinaryMagic = []byte{0x10, 0xff, 0x10, 0xad}

// unpackedRuntimes are the LLVM majors whose OpenMP runtime
// scripts/install-deps.sh unpacks in /opt/libomp-<major> (Debian's
// libomp-<major>-dev conflicts with libomp-16-dev, so it is not installed).
var unpackedRuntimes = []int{15, 19}

// TestRuntimesRunRegisteredOffloadBinaries is the LLVM 15 and 19 rows of
// the registration table in docs/compatibility.md, on each LLVM's own
// runtime: that clang compiles testdata/target.c, `offload packager` makes
// the device image an OffloadBinary, and `offload wrap --offload-binaries`
// registers it whole, as the rules do for LLVM 15-19 (kinds/openmp.bzl
// wrap_flags); the raw image is registered too, as a second program. The
// reference is the LLVM's own pipeline (clang-linker-wrapper): its
// registered image must be all of .llvm.offloading, an OffloadBinary. All
// three must run the target region with offloading mandatory. The
// runtime's host plugin only accepts an ELF image, so the whole form runs
// only because the runtime unwraps the OffloadBinary.
func TestRuntimesRunRegisteredOffloadBinaries(t *testing.T) {
	needTools(t)
	src, err := os.ReadFile("testdata/target.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, major := range unpackedRuntimes {
		t.Run(fmt.Sprintf("llvm%d", major), func(t *testing.T) {
			clang := fmt.Sprintf("clang-%d", major)
			llvmtest.Need(t, clang, fmt.Sprintf("/usr/lib/llvm-%d/bin/clang-linker-wrapper", major))
			lib := fmt.Sprintf("/opt/libomp-%d/usr/lib/llvm-%d/lib", major, major)
			inc, _ := filepath.Glob(filepath.Join(lib, "clang", "*", "include", "omp.h"))
			if _, err := os.Stat(filepath.Join(lib, "libomptarget.so")); err != nil || len(inc) != 1 {
				llvmtest.Missing(t, "libomp-%d-dev is not unpacked in /opt/libomp-%d; run scripts/install-deps.sh", major, major)
			}
			s := step{t, t.TempDir()}
			llvmtest.WriteFile(t, s.dir, "target.c", src)
			runOnRuntime(s, clang, lib, filepath.Dir(inc[0]))
		})
	}
}

func runOnRuntime(s step, clang, lib, inc string) {
	t := s.t
	t.Helper()
	omp := []string{"-fopenmp", "-fopenmp-targets=" + offload, "-isystem", inc}
	s.must(clang, append(omp, "--offload-device-only", "-c", "target.c", "-o", "device.o")...)
	s.must(clang, "--target="+offload, "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", "device.so", "device.o")
	s.must(clang, append(omp, "--offload-host-only", "-c", "target.c", "-o", "host.o")...)
	s.must(offloadBin, "packager", "-o", "device.pkg", "--image=file=device.so,triple="+offload+",arch=x86-64,kind=openmp")

	wrap := []string{"wrap", "--kind=openmp", "--entries=legacy", "--triple=" + offload, "--emit=obj"}
	s.must(offloadBin, append(wrap, "--offload-binaries", "-o", "whole.o", "device.pkg")...)
	s.must(offloadBin, append(wrap, "-o", "raw.o", "device.so")...)
	if got := offloadingSection(t, filepath.Join(s.dir, "whole.o")); !bytes.HasPrefix(got, offloadBinaryMagic) {
		t.Fatalf("whole.o does not register an OffloadBinary: .llvm.offloading starts % x", got[:min(len(got), 8)])
	}
	s.must(clang, append(omp, "target.c", "-o", "prog-own", "-L"+lib, "-Wl,-rpath,"+lib)...)
	registersWholeBinary(t, filepath.Join(s.dir, "prog-own"))
	for _, obj := range []string{"whole.o", "raw.o"} {
		prog := "prog-" + obj[:len(obj)-2]
		s.must("gcc", "-o", prog, "host.o", obj, "-L"+lib, "-Wl,--no-as-needed", "-lomp", "-lomptarget", "-Wl,-rpath,"+lib)
	}
	for _, prog := range []string{"prog-own", "prog-whole", "prog-raw"} {
		cmd := exec.Command("./" + prog)
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+lib, "OMP_TARGET_OFFLOAD=MANDATORY")
		if out, err := cmd.CombinedOutput(); err != nil || string(out) != wantRun {
			t.Errorf("%s on %s: %v, printed %q; want %q", prog, lib, err, out, wantRun)
		}
	}
}

// offloadingSection returns the .llvm.offloading section of an object.
func offloadingSection(t *testing.T, path string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".llvm.offloading")
	if sec == nil {
		t.Fatalf("%s has no .llvm.offloading section", path)
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// registersWholeBinary checks that the program's registered device image
// (clang-linker-wrapper's .omp_offloading.device_image) is all of its
// .llvm.offloading section and that the section is an OffloadBinary.
func registersWholeBinary(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".llvm.offloading")
	syms, err := f.Symbols()
	if sec == nil || err != nil {
		t.Fatalf("%s: no .llvm.offloading section or no symbols (%v)", path, err)
	}
	head := make([]byte, len(offloadBinaryMagic))
	if _, err := sec.ReadAt(head, 0); err != nil || !bytes.Equal(head, offloadBinaryMagic) {
		t.Fatalf("%s: .llvm.offloading starts % x, not an OffloadBinary (%v)", path, head, err)
	}
	for _, sym := range syms {
		if sym.Name == ".omp_offloading.device_image" {
			if sym.Value != sec.Addr || sym.Size != sec.Size {
				t.Fatalf("%s: image at %#x+%#x, .llvm.offloading at %#x+%#x", path, sym.Value, sym.Size, sec.Addr, sec.Size)
			}
			return
		}
	}
	t.Fatalf("%s: no .omp_offloading.device_image symbol", path)
}
