// Package openmp proves on a real OpenMP runtime that the registration code
// of lib/wrapper works: Debian's libomptarget 16 runs the target region of
// testdata/target.c on its x86-64 host plugin, with LLVM's packager, linker
// wrapper and offload wrapper all left out. See README.md.
package openmp

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/wrapper"
)

const (
	llvm16Lib = "/usr/lib/llvm-16/lib"
	offload   = "x86_64-pc-linux-gnu"
	wantRun   = "initial=0 sum=4032 counter=42\n"
)

func needTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("SKIP (loud): the proof runs x86-64 Linux programs; host is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	llvmtest.Need(t, "clang-16", "gcc")
	for _, lib := range []string{"libomptarget.so", "libomptarget.rtl.x86_64.so", "libomp.so"} {
		if _, err := os.Stat(filepath.Join(llvm16Lib, lib)); err != nil {
			llvmtest.Missing(t, "%s/%s is missing; install libomp-16-dev", llvm16Lib, lib)
		}
	}
}

type step struct {
	t   *testing.T
	dir string
}

func (s step) must(name string, args ...string) string {
	s.t.Helper()
	return llvmtest.Run(s.t, s.dir, name, args...)
}

// exec runs the program with the x86-64 plugin on the library path (the
// runtime dlopens it by name) and offloading made mandatory, so a target
// region that falls back to the host is an error rather than a silent pass.
// It returns stdout and stderr together.
func (s step) exec(prog string, extra ...string) (string, error) {
	cmd := exec.Command("./" + prog)
	cmd.Dir = s.dir
	cmd.Env = append(append(os.Environ(), "LD_LIBRARY_PATH="+llvm16Lib, "OMP_TARGET_OFFLOAD=MANDATORY"), extra...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s step) link(prog string, objs ...string) {
	s.t.Helper()
	args := append([]string{"-o", prog}, objs...)
	// libomptarget needs libomp loaded even though the host code calls
	// nothing in it directly, hence --no-as-needed.
	s.must("gcc", append(args, "-L"+llvm16Lib, "-Wl,--no-as-needed", "-lomp", "-lomptarget", "-Wl,-rpath,"+llvm16Lib)...)
}

// build compiles the device image and the host object of testdata/target.c
// with clang-16, without LLVM's packager, linker wrapper or wrapper.
func build(t *testing.T) (step, wrapper.Image) {
	needTools(t)
	s := step{t, t.TempDir()}
	src, err := os.ReadFile("testdata/target.c")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.dir, "target.c"), src, 0o644)
	omp := []string{"-fopenmp", "-fopenmp-targets=" + offload}
	s.must("clang-16", append(omp, "--offload-device-only", "-c", "target.c", "-o", "device.o")...)
	s.must("clang-16", "--target="+offload, "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", "device.so", "device.o")
	s.must("clang-16", append(omp, "--offload-host-only", "-c", "target.c", "-o", "host.o")...)
	img, err := os.ReadFile(filepath.Join(s.dir, "device.so"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := elf.NewFile(bytes.NewReader(img)); err != nil || f.Type != elf.ET_DYN {
		t.Fatalf("device image is not an ELF shared object: %v", err)
	}
	return s, wrapper.Image{Data: bytes.NewReader(img), Size: int64(len(img)), Path: "device.so"}
}

func emit(t *testing.T, dir, name string, fn func(*bytes.Buffer) error) {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTargetRegionRunsOnDevice registers the device image with our wrapper
// (legacy entries, which clang-16 and libomptarget 16 use) as an object
// written directly and as C compiled by gcc, links with -lomptarget and
// runs: the target region must run on the offload device
// (omp_is_initial_device() == 0) and compute the right values, including a
// declare-target variable read back with target update.
func TestTargetRegionRunsOnDevice(t *testing.T) {
	s, img := build(t)
	o := wrapper.Options{Kind: wrapper.OpenMP, Triple: offload, ABI: wrapper.Legacy}
	forms := map[string]func(*bytes.Buffer) error{
		"wrap-obj.o": func(b *bytes.Buffer) error { return wrapper.EmitObj(b, []wrapper.Image{img}, o) },
		"wrap.c":     func(b *bytes.Buffer) error { return wrapper.EmitC(b, []wrapper.Image{img}, o) },
		"wrap.s":     func(b *bytes.Buffer) error { return wrapper.EmitAsm(b, []wrapper.Image{img}, o) },
		"wrap.ll":    func(b *bytes.Buffer) error { return wrapper.EmitLL(b, []wrapper.Image{img}, o) },
	}
	for name, fn := range forms {
		emit(t, s.dir, name, fn)
	}
	s.must("gcc", "-c", "-O2", "-Wall", "-Wextra", "-Werror", "wrap.c", "-o", "wrap-c.o")
	s.must("gcc", "-c", "wrap.s", "-o", "wrap-s.o")
	s.must("clang-16", "-c", "-x", "ir", "wrap.ll", "-o", "wrap-ll.o")
	for _, obj := range []string{"wrap-obj.o", "wrap-c.o", "wrap-s.o", "wrap-ll.o"} {
		prog := "prog-" + strings.TrimSuffix(obj, ".o")
		s.link(prog, "host.o", obj)
		out, err := s.exec(prog)
		if err != nil || out != wantRun {
			t.Errorf("%s: %v, printed %q; want %q", obj, err, out, wantRun)
		}
	}

	// The control: without the registration the runtime has no image, so
	// the mandatory offload must fail; the wrapper is what makes it work.
	s.link("prog-none", "host.o")
	if out, err := s.exec("prog-none"); err == nil || strings.Contains(out, "initial=0") {
		t.Errorf("without registration the program still offloaded: %v %q", err, out)
	}
}

// TestImageInfoWithTargetIDs gives the image a target ID: the object
// references __tgt_register_image_info weakly, so it links and runs on
// libomptarget 16, which lacks it, and registers the info where the
// function exists (here preloaded, as a runtime that has it would provide).
func TestImageInfoWithTargetIDs(t *testing.T) {
	s, img := build(t)
	img.Arch = "x86-64"
	o := wrapper.Options{Kind: wrapper.OpenMP, Triple: offload, ABI: wrapper.Legacy}
	emit(t, s.dir, "wrap-obj.o", func(b *bytes.Buffer) error { return wrapper.EmitObj(b, []wrapper.Image{img}, o) })
	emit(t, s.dir, "wrap.c", func(b *bytes.Buffer) error { return wrapper.EmitC(b, []wrapper.Image{img}, o) })
	s.must("gcc", "-c", "-O2", "-Wall", "-Werror", "wrap.c", "-o", "wrap-c.o")
	os.WriteFile(filepath.Join(s.dir, "info.c"), []byte(`#include <stdio.h>
struct info { int version, number, count; const char *arch, *opts; };
void __tgt_register_image_info(struct info *i) {
  printf("image_info version=%d number=%d count=%d arch=%s\n", i->version, i->number, i->count, i->arch);
}
`), 0o644)
	s.must("gcc", "-shared", "-fPIC", "-o", "info.so", "info.c")
	for _, obj := range []string{"wrap-obj.o", "wrap-c.o"} {
		prog := "prog-" + strings.TrimSuffix(obj, ".o")
		s.link(prog, "host.o", obj)
		if out, err := s.exec(prog); err != nil || out != wantRun {
			t.Errorf("%s on libomptarget 16: %v, printed %q; want %q", obj, err, out, wantRun)
		}
		want := "image_info version=1 number=0 count=1 arch=x86-64\n" + wantRun
		if out, err := s.exec(prog, "LD_PRELOAD="+filepath.Join(s.dir, "info.so")); err != nil || out != want {
			t.Errorf("%s with __tgt_register_image_info: %v, printed %q; want %q", obj, err, out, want)
		}
	}
}

// TestNotedImageRuns adds the LLVMOMPOFFLOAD notes to the device image;
// the runtime still loads it.
func TestNotedImageRuns(t *testing.T) {
	s, img := build(t)
	noted, err := wrapper.AddOpenMPNotes(img, "")
	if err != nil {
		t.Fatal(err)
	}
	o := wrapper.Options{Kind: wrapper.OpenMP, Triple: offload, ABI: wrapper.Legacy}
	emit(t, s.dir, "wrap.o", func(b *bytes.Buffer) error { return wrapper.EmitObj(b, []wrapper.Image{noted}, o) })
	s.link("prog", "host.o", "wrap.o")
	if out, err := s.exec("prog"); err != nil || out != wantRun {
		t.Errorf("noted image: %v, printed %q; want %q", err, out, wantRun)
	}
}
