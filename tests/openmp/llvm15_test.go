package openmp

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// llvm15Lib is where scripts/install-deps.sh unpacks libomp-15-dev (it
// conflicts with libomp-16-dev, so it is not installed).
const llvm15Lib = "/opt/libomp-15/usr/lib/llvm-15/lib"

// offloadBinaryMagic starts every OffloadBinary (llvm/Object/OffloadBinary.h).
var offloadBinaryMagic = []byte{0x10, 0xff, 0x10, 0xad}

// TestLLVM15RunsRegisteredOffloadBinaries is the LLVM 15 row of the
// registration table in docs/compatibility.md, on LLVM 15's own runtime:
// clang-15 compiles testdata/target.c, `offload packager` makes the device
// image an OffloadBinary, and `offload wrap --offload-binaries` registers
// it whole, as the rules do for LLVM 15 (kinds/openmp.bzl wrap_flags).
// libomptarget 15 must unwrap it (its x86-64 plugin only accepts an ELF
// image) and run the target region with offloading mandatory; the raw
// image, registered as such, must run too.
func TestLLVM15RunsRegisteredOffloadBinaries(t *testing.T) {
	needTools(t)
	llvmtest.Need(t, "clang-15")
	for _, lib := range []string{"libomptarget.so", "libomptarget.rtl.x86_64.so", "libomp.so"} {
		if _, err := os.Stat(filepath.Join(llvm15Lib, lib)); err != nil {
			llvmtest.Missing(t, "%s/%s is missing; run scripts/install-deps.sh", llvm15Lib, lib)
		}
	}
	s := step{t, t.TempDir()}
	src, err := os.ReadFile("testdata/target.c")
	if err != nil {
		t.Fatal(err)
	}
	llvmtest.WriteFile(t, s.dir, "target.c", src)
	// omp.h is libomp-15-dev's, unpacked beside its libraries.
	inc, _ := filepath.Glob(filepath.Join(llvm15Lib, "clang", "15*", "include"))
	if len(inc) != 1 {
		llvmtest.Missing(t, "%s/clang/15*/include (omp.h) is missing; run scripts/install-deps.sh", llvm15Lib)
	}
	omp := []string{"-fopenmp", "-fopenmp-targets=" + offload, "-isystem", inc[0]}
	s.must("clang-15", append(omp, "--offload-device-only", "-c", "target.c", "-o", "device.o")...)
	s.must("clang-15", "--target="+offload, "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", "device.so", "device.o")
	s.must("clang-15", append(omp, "--offload-host-only", "-c", "target.c", "-o", "host.o")...)
	s.must(offloadBin, "packager", "-o", "device.pkg", "--image=file=device.so,triple="+offload+",arch=x86-64,kind=openmp")

	wrap := []string{"wrap", "--kind=openmp", "--entries=legacy", "--triple=" + offload, "--emit=obj"}
	s.must(offloadBin, append(wrap, "--offload-binaries", "-o", "whole.o", "device.pkg")...)
	s.must(offloadBin, append(wrap, "-o", "raw.o", "device.so")...)
	if got := offloadingSection(t, filepath.Join(s.dir, "whole.o")); !bytes.HasPrefix(got, offloadBinaryMagic) {
		t.Fatalf("whole.o does not register an OffloadBinary: .llvm.offloading starts % x", got[:min(len(got), 8)])
	}
	// The reference: LLVM 15's own pipeline (clang-linker-wrapper-15,
	// from clang-tools-15) registers the OffloadBinary whole as well.
	llvmtest.Need(t, "/usr/lib/llvm-15/bin/clang-linker-wrapper")
	s.must("clang-15", append(omp, "target.c", "-o", "prog-llvm15", "-L"+llvm15Lib, "-Wl,-rpath,"+llvm15Lib)...)
	registersWholeBinary(t, filepath.Join(s.dir, "prog-llvm15"))
	for _, obj := range []string{"whole.o", "raw.o"} {
		prog := "prog-" + obj[:len(obj)-2]
		s.must("gcc", "-o", prog, "host.o", obj, "-L"+llvm15Lib, "-Wl,--no-as-needed", "-lomp", "-lomptarget", "-Wl,-rpath,"+llvm15Lib)
	}
	for _, prog := range []string{"prog-llvm15", "prog-whole", "prog-raw"} {
		cmd := exec.Command("./" + prog)
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+llvm15Lib, "OMP_TARGET_OFFLOAD=MANDATORY")
		if out, err := cmd.CombinedOutput(); err != nil || string(out) != wantRun {
			t.Errorf("%s on libomptarget 15: %v, printed %q; want %q", prog, err, out, wantRun)
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
