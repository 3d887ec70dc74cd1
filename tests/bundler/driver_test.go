package bundler_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// A HIP kernel that compiles without the HIP headers or device libraries.
const hipKernel = `#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3_;
extern "C" int hipLaunchKernel(const void*, dim3_, dim3_, void**, unsigned long, void*);
__global__ void k(int *p) { *p = 42; }
__global__ void k2(float *p, int n) { for (int i = 0; i < n; i++) p[i] *= 2; }
`

// TestClangDriver: clang++-22 -B DIR, with DIR holding our
// clang-offload-bundler, must produce the same object as with LLVM's own
// bundler. -### shows clang picks the bundler from DIR, and a DIR whose
// clang-offload-bundler fails makes the compile fail, so clang really runs
// what it finds there.
func TestClangDriver(t *testing.T) {
	llvmtest.Difference(t, 23, "clang 23 compiles HIP with the new offload driver by default: clang -c runs llvm-offload-binary and clang-linker-wrapper, not clang-offload-bundler", "tests/packager TestHIPNewDriverByteIdentical")
	t.Parallel()
	clangxx := llvmtest.Tool(t, clangxxName)
	llvmtest.Need(t, llvmBundlerName)
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "k.hip", []byte(hipKernel))
	compile := func(out string, extra ...string) ([]byte, error) {
		args := append(extra, "-cuid=fixed", "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+",
			"-nogpuinc", "-nogpulib", "-c", src, "-o", filepath.Join(dir, out))
		cmd := exec.Command(clangxx, args...)
		cmd.Env = llvmtest.BundlerEnv()
		return cmd.CombinedOutput()
	}
	out, err := compile("plan", "-###", "-B", binDir)
	if err != nil {
		t.Fatalf("clang -###: %v\n%s", err, out)
	}
	if want := `"` + linkBin + `" "-type=o"`; !bytes.Contains(out, []byte(want)) {
		t.Fatalf("clang -### -B %s does not run %s:\n%s", binDir, want, out)
	}
	// With -fgpu-rdc the host object itself is a bundle (-type=o), which
	// llvm-objcopy lays out: its string table included.
	for _, rdc := range [][]string{nil, {"-fgpu-rdc"}} {
		if out, err := compile("llvm.o", rdc...); err != nil {
			t.Fatalf("clang %q with LLVM's bundler: %v\n%s", rdc, err, out)
		}
		if out, err := compile("ours.o", append([]string{"-B", binDir}, rdc...)...); err != nil {
			t.Fatalf("clang %q with our bundler: %v\n%s", rdc, err, out)
		}
		sameBytes(t, fmt.Sprintf("HIP object %q", rdc), llvmtest.ReadFile(t, filepath.Join(dir, "llvm.o")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.o")))
	}

	// Control: a failing clang-offload-bundler in -B makes clang fail.
	bad := filepath.Join(dir, "bad")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	llvmtest.WriteFile(t, bad, "clang-offload-bundler", []byte("#!/bin/sh\necho fake bundler ran >&2\nexit 1\n"))
	os.Chmod(filepath.Join(bad, "clang-offload-bundler"), 0o755)
	out, err = compile("bad.o", "-B", bad)
	if err == nil || !strings.Contains(string(out), "fake bundler ran") {
		t.Errorf("clang did not run the bundler in -B: %v\n%s", err, out)
	}
}
