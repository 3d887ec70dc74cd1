package elfobj

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// An ELF file's e_version need not be 1: cubins hold the CUDA ABI version
// there, and LLVM reads them. Open must too.
func TestOpenAnyEVersion(t *testing.T) {
	b, err := os.ReadFile("testdata/clang22-x86_64-tiny.o")
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[20:], 0x76)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("Open with e_version 0x76: %v", err)
	}
	if _, err := f.ArchiveSymbols(); err != nil {
		t.Fatalf("ArchiveSymbols: %v", err)
	}
}

// A real cubin from nvcc (CUDA 11.8) opens, with the kernel's section.
func TestOpenCubin(t *testing.T) {
	nvcc := llvmtest.Tool(t, "nvcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cu")
	os.WriteFile(src, []byte(`extern "C" __global__ void k(float *x) { x[threadIdx.x] *= 2; }`+"\n"), 0o644)
	out := filepath.Join(dir, "k.cubin")
	if b, err := exec.Command(nvcc, "-cubin", "-arch=sm_80", src, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(out)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("Open(cubin): %v", err)
	}
	found := false
	for _, s := range f.Sections {
		found = found || s.Name == ".text.k"
	}
	if !found {
		t.Errorf("no .text.k section in the cubin")
	}
}
