// cuRAND's host API fills a device buffer with uniform floats; a kernel maps
// them to [lo, hi) in place; the host checks the range and the mean. Exit
// status: 0 correct, 1 wrong or failed, 2 no GPU (the runtime's own error
// is printed).
//
// BUILD: cuda_library(deps = ["@offload_cuda//:curand"]).
#include <cuda_runtime.h>
#include <curand.h>

#include <cstdio>
#include <vector>

constexpr int kN = 1 << 16;

__global__ void Scale(float* x, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = lo + (hi - lo) * (1.0f - x[i]);  // (0, 1] -> [lo, hi)
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      std::printf("curand_uniform: %s: %s\n", e == cudaErrorNoDevice ? "no device" : "failed", \
                  cudaGetErrorString(e));                                                    \
      return e == cudaErrorNoDevice ? 2 : 1;                                                 \
    }                                                                                        \
  } while (0)

int main() {
  const float lo = -3.0f, hi = 5.0f;
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  float* x;
  CHECK(cudaMalloc(&x, kN * sizeof(float)));
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS ||
      curandSetPseudoRandomGeneratorSeed(gen, 1234) != CURAND_STATUS_SUCCESS ||
      curandGenerateUniform(gen, x, kN) != CURAND_STATUS_SUCCESS) {
    std::printf("curand_uniform: failed: cuRAND\n");
    return 1;
  }
  Scale<<<(kN + 255) / 256, 256>>>(x, kN, lo, hi);
  CHECK(cudaGetLastError());
  std::vector<float> got(kN);
  CHECK(cudaMemcpy(got.data(), x, kN * sizeof(float), cudaMemcpyDeviceToHost));
  curandDestroyGenerator(gen);
  double sum = 0;
  for (float v : got) {
    if (v < lo || v >= hi) {
      std::printf("curand_uniform: %g is not in [%g, %g)\n", v, lo, hi);
      return 1;
    }
    sum += v;
  }
  double mean = sum / kN, want = (lo + hi) / 2;
  if (mean < want - 0.05 || mean > want + 0.05) {
    std::printf("curand_uniform: mean %g, want about %g\n", mean, want);
    return 1;
  }
  std::printf("curand_uniform: PASSED (%d numbers, mean %.4f)\n", kN, mean);
  return 0;
}
