package main

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// wrapperInputs writes one image of each kind: an OffloadBinary (LLVM
// 22's 152-byte vector, docs/provenance.md#offload-binary), a fatbinary header and an
// offload bundle header, plus an empty file and a text file.
func wrapperInputs(t *testing.T, dir string) {
	t.Helper()
	ob := []byte("\x10\xff\x10\xad\x01\x00\x00\x00\x98\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00\x00\x28\x00\x00\x00\x00\x00\x00\x00" +
		"\x01\x00\x01\x00\x00\x00\x00\x00\x48\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x90\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00" +
		"\x69\x00\x00\x00\x00\x00\x00\x00\x87\x00\x00\x00\x00\x00\x00\x00\x6e\x00\x00\x00\x00\x00\x00\x00\x75\x00\x00\x00\x00\x00\x00\x00" +
		"\x00arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx906\x00\x00\x00AAAA\x00\x00\x00\x00")
	files := map[string][]byte{
		"ob.bin":    ob,
		"k.fatbin":  []byte("\x50\xed\x55\xba\x01\x00\x10\x00\x08\x00\x00\x00\x00\x00\x00\x00FATBIN!!"),
		"k.hipfb":   []byte("__CLANG_OFFLOAD_BUNDLE__\x00\x00\x00\x00\x00\x00\x00\x00"),
		"empty.bin": nil,
		"text.txt":  []byte("not an image"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wrapRun runs our dispatcher as prog in dir.
func wrapRun(t *testing.T, dir, prog string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	rc := dispatch(append([]string{prog}, args...), &out, &errb)
	return rc, out.String(), errb.String()
}

// TestWrapperCLIMatchesLLVM runs the same command lines through
// llvm-offload-wrapper-22 and through our llvm-offload-wrapper personality:
// exit status and diagnostics must agree, and where LLVM succeeds ours must
// write bitcode (under any name but *.o or *.obj for an ELF x86-64 or
// AArch64 host, which gets an object) that llvm-dis-22 prints as it prints
// LLVM's.
func TestWrapperCLIMatchesLLVM(t *testing.T) {
	llvmtest.Need(t, "llvm-offload-wrapper-22", "llvm-dis-22")
	const prog = "llvm-offload-wrapper-22"
	cases := [][]string{
		{"--kind=openmp", "-o", "out.bc", "ob.bin"},
		{"--kind=openmp", "-o", "out.ll", "ob.bin"},
		{"--kind=hip", "-o", "out", "k.hipfb"},
		{"--kind=openmp", "--triple=x86_64-pc-windows-msvc", "-o", "out.bc", "ob.bin"},
		{"--kind=cuda", "--triple=aarch64-pc-windows-msvc", "-o", "out.bc", "k.fatbin"},
		{"--kind=openmp", "-o", "out.bc", "ob.bin", "ob.bin"},
		{"--kind=cuda", "--triple=aarch64-unknown-linux-gnu", "-o", "out.bc", "k.fatbin"},
		{"--kind=hip", "-o", "out.bc", "k.hipfb"},
		{"ob.bin"},
		{"--kind=sycl", "-o", "out.bc", "ob.bin"},
		{"--kind=openmp", "-o", "out.bc"},
		{"--kind=openmp", "-o", "out.bc", "missing.bin"},
		{"--kind=openmp", "ob.bin"},
		{"--kind=openmp", "-o", "no/such/dir/out.bc", "ob.bin"},
		{"--kind=cuda", "-o", "out.bc", "k.fatbin", "k.fatbin"},
		// LLVM wraps any file, empty or of another kind's format.
		{"--kind=openmp", "-o", "out.bc", "text.txt"},
		{"--kind=openmp", "-o", "out.bc", "empty.bin"},
		{"--kind=cuda", "-o", "out.bc", "ob.bin"},
		{"--kind=hip", "-o", "out.bc", "k.fatbin"},
		// Where no ELF object can be made, a .o or .obj name gets LLVM's bitcode.
		{"--kind=hip", "--triple=x86_64-pc-windows-msvc", "-o", "out.obj", "k.hipfb"},
		{"--kind=openmp", "--triple=riscv64-unknown-linux-gnu", "-o", "out.o", "ob.bin"},
		{"--kind=cuda", "--triple=x86_64-w64-mingw32", "-o", "out.o", "k.fatbin"},
	}
	for _, args := range cases {
		llvmDir, ourDir := t.TempDir(), t.TempDir()
		wrapperInputs(t, llvmDir)
		wrapperInputs(t, ourDir)
		llvm := llvmtest.RunResult(t, llvmDir, nil, prog, args...)
		rc, _, errs := wrapRun(t, ourDir, prog, args...)
		if rc != llvm.Code || errs != llvm.Stderr {
			t.Errorf("%q: rc %d stderr %q; LLVM: rc %d stderr %q", args, rc, errs, llvm.Code, llvm.Stderr)
		}
		if rc == 0 && llvm.Code == 0 {
			out := args[slices.Index(args, "-o")+1]
			want := llvmtest.Run(t, llvmDir, "llvm-dis-22", out, "-o", "-")
			got := llvmtest.Run(t, ourDir, "llvm-dis-22", out, "-o", "-")
			if _, after, _ := strings.Cut(got, "\n"); !strings.HasSuffix(want, "\n"+after) {
				t.Errorf("%q: llvm-dis-14 prints our output as\n%.2000s\nand LLVM's as\n%.2000s", args, got, want)
			}
		}
	}
}

func TestWrapperCLIErrorsLeaveNoOutput(t *testing.T) {
	dir := t.TempDir()
	wrapperInputs(t, dir)
	// LLVM 22 writes a module for Mach-O hosts that clang cannot compile;
	// ours refuses, saying why.
	rc, _, errs := wrapRun(t, dir, "llvm-offload-wrapper", "--kind=hip", "--triple=arm64-apple-macosx", "-o", "mac.bc", "k.hipfb")
	if rc != 1 || !strings.Contains(errs, "error: 'arm64-apple-macosx': Mach-O hosts are not supported") {
		t.Errorf("Mach-O host: rc %d, stderr %q", rc, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "mac.bc")); err == nil {
		t.Error("Mach-O host: mac.bc written")
	}
	for _, c := range []struct {
		prog string
		args []string
		msg  string
	}{
		// offload wrap checks what the drop-in, like LLVM, wraps blindly.
		{"offload", []string{"wrap", "--kind=openmp", "-o", "out.ll", "empty.bin"}, "empty.bin: empty image"},
		{"offload", []string{"wrap", "--kind=openmp", "-o", "out.ll", "text.txt"}, "unrecognised data is not an OpenMP device image"},
		{"offload", []string{"wrap", "--kind=cuda", "-o", "out.ll", "ob.bin"}, "an OffloadBinary is not a CUDA fatbinary"},
		{"offload", []string{"wrap", "--kind=hip", "-o", "out.o", "k.fatbin"}, "a CUDA fatbinary is not a HIP offload bundle"},
		{"offload", []string{"wrap", "--kind=openmp", "--triple=riscv64-linux-gnu", "-o", "out.o", "ob.bin"}, "x86_64 and aarch64 hosts only"},
		{"offload", []string{"wrap", "--kind=hip", "--triple=x86_64-pc-windows-msvc", "-o", "out.obj", "k.hipfb"}, "COFF hosts are supported by the LLVM IR and bitcode forms only"},
		{"clang-offload-wrapper", []string{"-target=foo-bar", "-o", "out.bc", "ob.bin"}, "error: 'foo-bar': unsupported target triple"},
		{"clang-offload-wrapper", []string{"-o", "out.bc", "ob.bin"}, "for the --target option: must be specified at least once!"},
		{"clang-offload-wrapper", []string{"-target", "x86_64-linux-gnu", "ob.bin"}, "for the -o option: must be specified at least once!"},
		{"clang-offload-wrapper", []string{"-target", "x86_64-linux-gnu", "-o", "out.o", "--offload-arch=gfx906", "ob.bin", "ob.bin"}, "input 2 has no --offload-arch"},
		{"clang-offload-wrapper", []string{"-target", "x86_64-linux-gnu", "-o", "out.o", "ob.bin", "--offload-arch=gfx906"}, "is not followed by an input image"},
		{"offload", []string{"wrap", "--kind=openmp", "-o", "out.zz", "ob.bin"}, "give --emit"},
		{"offload", []string{"wrap", "--kind=openmp", "--emit=obj", "--offload-arch=gfx906", "-o", "out.o", "ob.bin"}, "only recorded for OpenMP with the legacy ABI"},
		{"offload", []string{"wrap", "--kind=openmp", "--entries=legacy", "--llvm=12", "-o", "out.bc", "ob.bin"}, "unsupported reader LLVM version 12: the oldest written for is 13"},
		{"offload", []string{"wrap", "--kind=openmp", "--llvm=15", "-o", "out.ll", "ob.bin"}, "version 15: the LLVM20 entry ABI is LLVM 20's"},
		{"offload", []string{"wrap", "--kind=openmp", "--llvm=fifteen", "-o", "out.ll", "ob.bin"}, "--llvm must be an LLVM major version"},
	} {
		rc, _, errs := wrapRun(t, dir, c.prog, c.args...)
		if rc == 0 || !strings.Contains(errs, c.msg) {
			t.Errorf("%s %q: rc %d, stderr %q; want an error containing %q", c.prog, c.args, rc, errs, c.msg)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "out") || strings.Contains(e.Name(), ".tmp") {
				t.Errorf("%s %q left %s behind", c.prog, c.args, e.Name())
			}
		}
	}
	if rc, _, _ := wrapRun(t, dir, "offload", "wrap", "-o", "x.o", "ob.bin"); rc != 2 {
		t.Errorf("usage error: rc %d, want 2", rc)
	}
}

// TestClangOffloadWrapperCLI: target IDs pair with the input that follows
// them; the output is an object for .o and bitcode otherwise; notes are
// added to ELF images and skipped, with LLVM's warning, for others.
func TestClangOffloadWrapperCLI(t *testing.T) {
	dir := t.TempDir()
	wrapperInputs(t, dir)
	rc, _, errs := wrapRun(t, dir, "clang-offload-wrapper", "--target=x86_64-pc-linux-gnu", "-o", "w.o",
		"--offload-arch=gfx906", "ob.bin", "--offload-arch", "gfx90a:xnack+", "ob.bin", "--add-omp-offload-notes")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	if want := "clang-offload-wrapper: warning: ob.bin is not an ELF image, so notes cannot be added to it.\n"; strings.Count(errs, want) != 2 {
		t.Errorf("stderr %q, want the notes warning twice", errs)
	}
	f, err := elf.Open(filepath.Join(dir, "w.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	archs, _ := f.Section(".offload_arch_list").Data()
	if string(archs) != "gfx906\x00gfx90a:xnack+\x00" {
		t.Errorf(".offload_arch_list = %q", archs)
	}
	if f.Section(".init_array.1") == nil || f.Section(".fini_array.1") == nil || f.Section("omp_offloading_entries") == nil {
		t.Error("legacy layout sections missing")
	}
	rc, _, errs = wrapRun(t, dir, "clang-offload-wrapper", "-target", "x86_64-pc-linux-gnu", "-o", "w.bc", "ob.bin")
	if bc, _ := os.ReadFile(filepath.Join(dir, "w.bc")); rc != 0 || !bytes.HasPrefix(bc, []byte("BC\xC0\xDE")) {
		t.Errorf("bitcode output: rc %d %s\n%.40q", rc, errs, bc)
	}
	if llvmtest.Has("llvm-dis-22") {
		ir := llvmtest.Run(t, dir, "llvm-dis-22", "w.bc", "-o", "-")
		if !strings.Contains(ir, "@llvm.global_dtors") || !strings.Contains(ir, `source_filename = "offload.wrapper.object"`) {
			t.Errorf("llvm-dis-22 w.bc:\n%.400s", ir)
		}
	}
	if rc, out, _ := wrapRun(t, dir, "clang-offload-wrapper", "--help-hidden"); rc != 0 || !strings.Contains(out, "--offload-arch") {
		t.Errorf("--help-hidden: rc %d\n%s", rc, out)
	}
}

// TestClangOffloadWrapperMatchesLLVM14 runs the same command lines through
// clang-offload-wrapper-14 and our clang-offload-wrapper: help, exit status
// and diagnostics must agree, and where LLVM succeeds llvm-dis-14 (the
// reader of LLVM 14's generation: typed pointers, constant GEPs as LLVM 14
// writes them) must print both outputs alike but for the one difference
// kept on purpose: our dummy entry is weak, so that two wrapper objects
// can share a link.
func TestClangOffloadWrapperMatchesLLVM14(t *testing.T) {
	llvmtest.Need(t, "clang-offload-wrapper-14", "llvm-dis-14")
	const prog = "clang-offload-wrapper-14"
	host := "-target=x86_64-pc-linux-gnu"
	cases := [][]string{
		{"--help"}, {"--help-list"}, {"-help"},
		{}, {"-o", "out.bc"}, {"ob.bin"}, {"--bogus", "-o", "out.bc", "ob.bin"},
		{"-o", "out.bc", "-target=bogus", "ob.bin"},
		{"-o", "out.bc", host, "missing.bin"},
		{"-o", "no/such/dir/out.bc", host, "ob.bin"},
		{"-o", "out.bc", host, "ob.bin"},
		{"-o", "out.bc", "-target", "aarch64-unknown-linux-gnu", "ob.bin", "k.fatbin", "text.txt"},
		{"-o", "out.bc", "--target=riscv64-unknown-linux-gnu", "empty.bin"},
		{"-o", "out.ll", host, "k.hipfb"},
		{"-o", "out.o", "--target=riscv64-unknown-linux-gnu", "ob.bin"},
	}
	for _, args := range cases {
		llvmDir, ourDir := t.TempDir(), t.TempDir()
		wrapperInputs(t, llvmDir)
		wrapperInputs(t, ourDir)
		llvm := llvmtest.RunResult(t, llvmDir, nil, prog, args...)
		rc, stdout, errs := wrapRun(t, ourDir, prog, args...)
		if rc != llvm.Code || errs != llvm.Stderr || stdout != llvm.Stdout {
			t.Errorf("%q: rc %d stdout %q stderr %q; LLVM: rc %d stdout %q stderr %q", args, rc, stdout, errs, llvm.Code, llvm.Stdout, llvm.Stderr)
			continue
		}
		i := slices.Index(args, "-o")
		if rc != 0 || i < 0 {
			continue
		}
		out := args[i+1]
		want := llvmtest.Run(t, llvmDir, "llvm-dis-14", out, "-o", "-")
		got := llvmtest.Run(t, ourDir, "llvm-dis-14", out, "-o", "-")
		const weak = "@__dummy.omp_offloading.entry = weak hidden constant"
		if !strings.Contains(got, weak) {
			t.Errorf("%q: our dummy entry is not weak:\n%s", args, got)
		}
		got = strings.Replace(got, weak, "@__dummy.omp_offloading.entry = hidden constant", 1)
		if _, after, _ := strings.Cut(got, "\n"); !strings.HasSuffix(want, "\n"+after) {
			t.Errorf("%q: llvm-dis-14 prints our output as\n%.3000s\nand LLVM's as\n%.3000s", args, got, want)
		}
	}
}

// TestWrapForms: offload wrap picks the form from -o (or --emit) and
// honours --entries and --inline.
func TestWrapForms(t *testing.T) {
	dir := t.TempDir()
	wrapperInputs(t, dir)
	for out, want := range map[string]string{"r.ll": "; ModuleID", "r.bc": "BC\xC0\xDE", "r.c": "#include <stdint.h>", "r.s": ".section", "r.o": "\x7fELF"} {
		if rc, _, errs := wrapRun(t, dir, "offload", "wrap", "--kind=hip", "-o", out, "k.hipfb"); rc != 0 {
			t.Fatalf("%s: rc %d %s", out, rc, errs)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, out)); !strings.Contains(string(b), want) {
			t.Errorf("%s does not contain %q", out, want)
		}
	}
	wrapRun(t, dir, "offload", "wrap", "--kind=cuda", "--entries=legacy", "--emit=c", "-o", "leg.txt", "k.fatbin")
	if b, _ := os.ReadFile(filepath.Join(dir, "leg.txt")); !strings.Contains(string(b), "__start_cuda_offloading_entries") {
		t.Errorf("--entries=legacy --emit=c did not write legacy C:\n%.300s", b)
	}
	wrapRun(t, dir, "offload", "wrap", "--kind=cuda", "--inline", "-o", "in.s", "k.fatbin")
	if b, _ := os.ReadFile(filepath.Join(dir, "in.s")); strings.Contains(string(b), ".incbin") || !strings.Contains(string(b), ".byte\t80,237,85,186") {
		t.Errorf("--inline did not write the bytes:\n%.600s", b)
	}
}

func TestPairArchs(t *testing.T) {
	valued := map[string]bool{"o": true, "target": true}
	got, err := pairArchs([]string{"-o", "x", "--offload-arch=a", "i1", "-target", "t", "-offload-arch", "b", "i2"}, valued)
	if err != nil || strings.Join(got, ",") != "a,b" {
		t.Errorf("got %q, %v", got, err)
	}
	if got, err := pairArchs([]string{"i1", "i2"}, valued); err != nil || got != nil {
		t.Errorf("no archs: %q, %v", got, err)
	}
	for _, bad := range [][]string{
		{"--offload-arch=a", "--offload-arch=b", "i1"},
		{"--offload-arch=a", "i1", "i2"},
		{"i1", "--offload-arch=a"},
		{"--offload-arch"},
	} {
		if _, err := pairArchs(bad, valued); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
