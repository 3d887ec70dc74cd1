package starlark_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// fp16CompatHeader is offload_compat/hip_fp16.h as offload_rocm_repository
// writes it (rules/sdk/rocm.bzl).
func fp16CompatHeader(t *testing.T) string {
	t.Helper()
	var calls []repoCall
	g, err := extensionLoader(&calls).load("rules/sdk/rocm.bzl")
	if err != nil {
		t.Fatal(err)
	}
	v, err := starlark.Eval(&starlark.Thread{Name: "fp16"}, "fp16", `_FP16_COMPAT.format(fwd = "hip/amd_detail/hip_fp16_math_fwd.h")`, g)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := starlark.AsString(v)
	return s
}

// A program that declared ROCm 5's fp16 helpers itself before the
// generated header existed (the only workaround then, as clang's old HIP
// wrapper declared them): with the header force-included, as the
// toolchain does for clang 22, it compiles ("redefinition of
// '__llvm_amdgcn_rcp_2f16'" before the header's declarations were
// templates), to the same code object as without its own declarations,
// and with -DOFFLOAD_NO_HIP_FP16_COMPAT too. Needs clang-22 and ROCm 5's
// HIP headers in /usr/include/hip (Debian 12's libamdhip64-dev).
func TestFP16CompatYieldsToTheProgramsOwn(t *testing.T) {
	clang := llvmtest.Tool(t, "clang-22")
	if _, err := os.Stat("/usr/include/hip/amd_detail/hip_fp16_math_fwd.h"); err != nil {
		llvmtest.Missing(t, "ROCm 5's HIP headers (/usr/include/hip/amd_detail/hip_fp16_math_fwd.h) are not installed")
	}
	dir := t.TempDir()
	header := filepath.Join(dir, "hip_fp16.h")
	llvmtest.WriteFile(t, dir, "hip_fp16.h", []byte(fp16CompatHeader(t)))
	kernel := `#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
__global__ void k(__half2 *p, __half *q) { p[0] = h2rcp(p[0]); q[0] = hrcp(q[0]); }
`
	// As clang's __clang_hip_libdevice_declares.h declared them.
	own := `extern "C" {
__device__ __attribute__((const)) _Float16 __llvm_amdgcn_rcp_f16(_Float16) __asm("llvm.amdgcn.rcp.f16");
typedef _Float16 __2f16 __attribute__((ext_vector_type(2)));
__device__ inline __2f16 __llvm_amdgcn_rcp_2f16(__2f16 __x) {
  return (__2f16){__llvm_amdgcn_rcp_f16(__x.x), __llvm_amdgcn_rcp_f16(__x.y)};
}
}
`
	llvmtest.WriteFile(t, dir, "plain.hip", []byte(kernel))
	llvmtest.WriteFile(t, dir, "own.hip", []byte(own+kernel))
	compile := func(src, out string, extra ...string) []byte {
		t.Helper()
		args := append([]string{"-x", "hip", "--offload-arch=gfx906", "--offload-device-only", "--no-gpu-bundle-output",
			"-nogpulib", "--rocm-path=/usr", "-D__AMDGCN_WAVEFRONT_SIZE=64", "-O2", "-cuid=fp16", "-c",
			"-include", header}, extra...)
		llvmtest.Run(t, dir, clang, append(args, "-o", out, src)...)
		data, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	plain := compile("plain.hip", "plain.o")
	if got := compile("own.hip", "own.o"); !bytes.Equal(got, plain) {
		t.Errorf("with the program's own declarations the code object differs from the one without them")
	}
	if got := compile("own.hip", "off.o", "-DOFFLOAD_NO_HIP_FP16_COMPAT"); !bytes.Equal(got, plain) {
		t.Errorf("with -DOFFLOAD_NO_HIP_FP16_COMPAT and the program's declarations the code object differs")
	}
}
