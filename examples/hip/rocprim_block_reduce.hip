// Block-wide sums with rocPRIM's block_reduce: one sum per block of 256
// values, checked against the CPU. Exit status: 0 correct, 1 wrong or
// failed, 2 no GPU (the runtime's own error is printed).
//
// BUILD: hip_library(deps = ["@offload_rocm//:rocprim"]). With ROCm 5's
// headers and clang 22 the toolchain adds the declarations hip_fp16.h
// expects from clang (see rules/README.md, "ROCm 5 with clang 22").
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <rocprim/rocprim.hpp>
#include <vector>

constexpr unsigned kBlock = 256;

__global__ void BlockReduce(const float* in, float* out) {
  using Reduce = rocprim::block_reduce<float, kBlock>;
  __shared__ Reduce::storage_type storage;
  float sum;
  Reduce().reduce(in[blockIdx.x * kBlock + threadIdx.x], sum, storage);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

#define CHECK(call)                                                                                     \
  do {                                                                                                  \
    hipError_t e = (call);                                                                              \
    if (e != hipSuccess) {                                                                              \
      std::printf("rocprim_block_reduce: %s: %s: %s\n", e == hipErrorNoDevice ? "no device" : "failed", \
                  hipGetErrorName(e), hipGetErrorString(e));                                            \
      return e == hipErrorNoDevice ? 2 : 1;                                                             \
    }                                                                                                   \
  } while (0)

int main() {
  const int blocks = 64, n = blocks * kBlock;
  std::vector<float> in(n), out(blocks);
  for (int i = 0; i < n; i++) in[i] = (i % 7) * 0.5f;
  int devices = 0;
  CHECK(hipGetDeviceCount(&devices));
  float *din, *dout;
  CHECK(hipMalloc(&din, n * sizeof(float)));
  CHECK(hipMalloc(&dout, blocks * sizeof(float)));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(float), hipMemcpyHostToDevice));
  BlockReduce<<<blocks, kBlock>>>(din, dout);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out.data(), dout, blocks * sizeof(float), hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    float want = 0;
    for (unsigned t = 0; t < kBlock; t++) want += in[b * kBlock + t];
    if (std::fabs(out[b] - want) > 1e-3f * want) {
      std::printf("rocprim_block_reduce: block %d: %g, want %g\n", b, out[b], want);
      return 1;
    }
  }
  std::printf("rocprim_block_reduce: PASSED (%d blocks)\n", blocks);
  return 0;
}
