package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// execSnippet runs a Starlark snippet whose load()s resolve as the rules' do
// (//labels from the repository root), and returns its globals.
func execSnippet(t *testing.T, src string) starlark.StringDict {
	t.Helper()
	thread := &starlark.Thread{
		Name: "snippet",
		Load: func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
			rel, err := bzl.resolve("snippet.bzl", module)
			if err != nil {
				return nil, err
			}
			return bzl.load(rel)
		},
	}
	g, err := starlark.ExecFileOptions(bazelOptions, thread, "snippet.bzl", src, bzl.predeclared)
	if err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			t.Fatalf("%s", ee.Backtrace())
		}
		t.Fatal(err)
	}
	return g
}

// An OpenMP GPU target on offload_clang_toolchain(llvm = ...) written
// without cuda = / rocm =: the toolchain has no SDK for it, whatever
// repositories the workspace holds, and the error says which attribute to
// set and to what (the default toolchain's repositories). A declared SDK
// that was not found keeps the repository's own reason.
func TestOpenMPUndeclaredSDKNamesTheAttribute(t *testing.T) {
	g := execSnippet(t, `
load("//rules/private/kinds:openmp.bzl", "OPENMP")
load("//rules/private/kinds:families.bzl", "AMDGCN", "NVPTX")

_llvm = struct(
    major = 22,
    version = "22.1.8",
    clang = struct(dirname = "external/offload_llvm/bin"),
    openmp_device_runtime = {
        "nvptx-sm_80": struct(path = "libomptarget-nvptx-sm_80.bc"),
        "amdgpu-gfx90a": struct(path = "libomptarget-amdgpu-gfx90a.bc"),
    },
    openmp_device_libraries = {},
    openmp_device_layout = "per-processor",
)
_missing = struct(found = False, error = "no CUDA here (the repository's reason)")

def _clang(cuda = None, rocm = None):
    return struct(llvm = _llvm, cuda = cuda, rocm = rocm, ptxas = "")

_sm80 = struct(name = "sm_80", processor = "sm_80", target_id = "sm_80", family = NVPTX, triple = "nvptx64-nvidia-cuda")
_gfx90a = struct(name = "gfx90a", processor = "gfx90a", target_id = "gfx90a", family = AMDGCN, triple = "amdgcn-amd-amdhsa")

no_cuda = OPENMP.link.rdc_plan(_clang(), _sm80)[1]
no_rocm = OPENMP.link.rdc_plan(_clang(), _gfx90a)[1]
cuda_not_found = OPENMP.link.rdc_plan(_clang(cuda = _missing), _sm80)[1]
rocm_not_found = OPENMP.link.rdc_plan(_clang(rocm = struct(found = False, error = "no ROCm here (the repository's reason)")), _gfx90a)[1]
`)
	for name, want := range map[string][]string{
		"no_cuda":        {`OpenMP target "sm_80" needs a CUDA toolkit`, `declares none`, `offload_clang_toolchain(cuda = "@offload_cuda//:cuda")`},
		"no_rocm":        {`OpenMP target "gfx90a" needs ROCm's device libraries`, `declares none`, `offload_clang_toolchain(rocm = "@offload_rocm//:rocm")`},
		"cuda_not_found": {`OpenMP target "sm_80" needs a CUDA toolkit`, `has none: no CUDA here (the repository's reason)`},
		"rocm_not_found": {`OpenMP target "gfx90a" needs ROCm's device libraries`, `has none: no ROCm here (the repository's reason)`},
	} {
		got, _ := starlark.AsString(g[name])
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: error %q lacks %q", name, got, w)
			}
		}
	}
}
