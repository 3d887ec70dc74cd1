package starlark_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The repository rules on the SDKs installed here, in the Debian sid leg
// (SID=1): CUDA 12.4 (nvidia-cuda-toolkit, Thrust/CUB/libcu++ 2.5 in
// /usr/include) and ROCm 6.4 (libamdhip64-dev 6.4.3, rocm-device-libs-21).
// Elsewhere (Debian 12's CUDA 11.8 and ROCm 5.2) they skip: tests/bazel
// covers those.

func sidLeg(t *testing.T) {
	t.Helper()
	if os.Getenv("SID") == "" {
		t.Skip("!!! SKIPPED: the Debian sid leg (SID=1) runs this against its CUDA 12.4 and ROCm 6.4 !!!")
	}
}

func TestSidCuda124(t *testing.T) {
	sidLeg(t)
	c := newRepoCtx(t, "offload_cuda", cudaAttrs())
	c.machine = true
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	cuda := targets["cuda"]
	if cuda.rule != "offload_cuda" || cuda.str("version") != "12.4" {
		t.Fatalf(":cuda is %s version %q: %s", cuda.rule, cuda.str("version"), cuda.str("error"))
	}
	archs := cuda.list("archs")
	// CUDA 12.4's ptxas stops at sm_90a: sm_100 and later fail at analysis
	// (kinds/cuda.bzl), as clang-23 itself refuses sm_120 with CUDA 12.4.
	if !slices.Contains(archs, "sm_90a") || slices.Contains(archs, "sm_100") || slices.Contains(archs, "sm_100f") {
		t.Errorf(":cuda archs %q: want sm_90a and no sm_100", archs)
	}
	for _, name := range []string{"thrust", "cub", "libcudacxx"} {
		wantLibrary(t, targets, name)
	}
	wantHeaders(t, targets, "thrust", "include/thrust/version.h")
	wantHeaders(t, targets, "libcudacxx", "include/cuda/std/version", "include/nv/target")
	wantLibrary(t, targets, "cublas", "lib64/libcublas.so.12")
	wantLibrary(t, targets, "cublasLt", "lib64/libcublasLt.so.12")
	wantLibrary(t, targets, "cudart", "lib64/libcudart.so.12")
	for _, name := range []string{"cufft", "curand", "cusparse", "cusolver", "nvrtc", "nvjitlink", "cudart_static"} {
		if tg := targets[name]; tg.rule != "cc_library" {
			t.Errorf(":%s is %s: %s", name, tg.rule, tg.str("error"))
		}
	}
	for _, h := range targets["cuda"].list("headers") {
		if strings.HasPrefix(h, "include/rocprim/") || strings.HasPrefix(h, "include/hip/") {
			t.Errorf(":cuda declares %s, not CUDA's", h)
		}
	}
}

func TestSidRocm64(t *testing.T) {
	sidLeg(t)
	c := newRepoCtx(t, "offload_rocm", rocmAttrs())
	c.machine = true
	if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	rocm := targets["rocm"]
	if rocm.rule != "offload_rocm" || !strings.HasPrefix(rocm.str("version"), "6.4.") {
		t.Fatalf(":rocm is %s version %q: %s", rocm.rule, rocm.str("version"), rocm.str("error"))
	}
	procs := rocm.list("processors")
	for _, p := range []string{"gfx942", "gfx950", "gfx1200", "gfx1201", "gfx9-generic", "gfx9-4-generic",
		"gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx12-generic"} {
		if !slices.Contains(procs, p) {
			t.Errorf(":rocm processors lack %s: %q", p, procs)
		}
	}
	for name, srcs := range map[string][]string{"hip_runtime": {"lib/libamdhip64.so.6"}, "rocrand": {"lib/librocrand.so.1"},
		"rocblas": {"lib/librocblas.so.4"}, "rocsparse": {"lib/librocsparse.so.1"}, "rocprim": nil, "hipcub": nil} {
		wantLibrary(t, targets, name, srcs...)
	}
}
