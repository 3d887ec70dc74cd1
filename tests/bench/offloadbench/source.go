package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// deviceSource generates a HIP/CUDA translation unit of n distinct kernels:
// loops of float arithmetic whose shape and constants come from seed, so
// that every seed compiles to different machine code and every target to
// its own instruction encoding, as in a real library. It needs no device
// libraries or headers, so clang-22 compiles it with -nogpulib.
func deviceSource(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x0ff10ad))
	ops := []string{"a*b", "a+b", "a-b", "fmaf(a,b,c)", "a*c+b", "__builtin_sqrtf(fabsf(a))+b",
		"(a*a*a-a)*b", "1.0f/(1.0f+fabsf(a))+c", "(a>b?a:b)", "a/(fabsf(b)+1.0f)"}
	var s strings.Builder
	s.WriteString(`#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ static inline float fabsf(float x) { return __builtin_fabsf(x); }
__device__ static inline float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
#ifdef __AMDGCN__
__device__ static inline int tid() { return __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256; }
#else
__device__ static inline int tid() { return __nvvm_read_ptx_sreg_tid_x() + __nvvm_read_ptx_sreg_ctaid_x() * 256; }
#endif
`)
	for k := range n {
		fmt.Fprintf(&s, `extern "C" __global__ void k%d_%d(float* __restrict__ out, const float* __restrict__ in, int n) {
  int i = tid(); if (i >= n) return;
  float x0 = in[i], x1 = in[(i + %d) %% n], x2 = in[(i * %d) %% n], x3 = %.4ff;
  #pragma unroll %d
  for (int j = 0; j < %d; ++j) {
`, seed, k, 1+r.IntN(99), 2+r.IntN(8), r.Float64()*2-1, []int{1, 2, 4}[r.IntN(3)], 4*(1+r.IntN(16)))
		for range 4 + r.IntN(11) {
			fmt.Fprintf(&s, "    { float a = x%d, b = x%d, c = %.4ff; x%d = %s; }\n",
				r.IntN(4), r.IntN(4), r.Float64()*8-4, r.IntN(4), ops[r.IntN(len(ops))])
		}
		s.WriteString("  }\n  out[i] = x0 + x1 * x2 - x3;\n}\n")
	}
	return s.String()
}

// hostSource is the host side of the object bundles: a plain C file.
const hostSource = `int offload_bench_add(int a, int b) { return a + b; }
int offload_bench_main(void) { return offload_bench_add(1, 2); }
`
