package packager_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestLLVM23OffloadBinaryVersion2: llvm-offload-binary 23 writes version 2
// of the OffloadBinary by default (one binary holding every image; 22.1.8
// writes version 1, one binary per image, as our drop-in does), and
// offload packager --format-version=2 writes its bytes exactly. Runs with
// OFFLOAD_LLVM_ORACLE=23.
func TestLLVM23OffloadBinaryVersion2(t *testing.T) {
	llvmtest.NeedOracleFrom(t, 23)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "k.o", []byte("kernel image\n"))
	llvmtest.WriteFile(t, dir, "k.bc", []byte("another image, longer\n"))
	images := []string{"--image=file=k.o,arch=gfx906,triple=amdgcn-amd-amdhsa,kind=hip",
		"--image=file=k.bc,arch=sm_70,triple=nvptx64-nvidia-cuda,kind=cuda"}
	mustRun(t, dir, nil, append([]string{llvmtest.Oracle("llvm-offload-binary"), "-o", "llvm.bin"}, images...)...)
	mustRun(t, dir, nil, append([]string{offloadBin, "packager", "--format-version=2", "-o", "v2.bin"}, images...)...)
	mustRun(t, dir, nil, append([]string{filepath.Join(linkDir, "llvm-offload-binary"), "-o", "dropin.bin"}, images...)...)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	llvm, v2, dropin := read("llvm.bin"), read("v2.bin"), read("dropin.bin")
	if len(llvm) < 8 || llvm[4] != 2 {
		t.Fatalf("LLVM %d no longer writes version 2 by default: % x", llvmtest.OracleMajor(), llvm[:min(8, len(llvm))])
	}
	if !bytes.Equal(llvm, v2) {
		t.Errorf("offload packager --format-version=2 differs from LLVM %d's: %s", llvmtest.OracleMajor(), llvmtest.FirstDiff(llvm, v2))
	}
	if len(dropin) < 8 || dropin[4] != 1 {
		t.Errorf("the drop-in no longer writes 22.1.8's version 1: % x", dropin[:min(8, len(dropin))])
	}
	// LLVM 23 reads the drop-in's version 1: both images come out.
	r := mustRun(t, dir, nil, llvmtest.Oracle("llvm-offload-binary"), "dropin.bin", "--image=file=out.o,arch=gfx906", "--image=file=out.bc,arch=sm_70")
	if !bytes.Equal(read("out.o"), []byte("kernel image\n")) || !bytes.Equal(read("out.bc"), []byte("another image, longer\n")) {
		t.Errorf("LLVM %d extracting the drop-in's package: %v", llvmtest.OracleMajor(), r)
	}
}
