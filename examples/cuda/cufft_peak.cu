// A forward complex FFT with cuFFT of a cosine a kernel writes on the
// device: the spectrum peaks at its frequency (bins k and n - k, n/2 each).
// Exit status: 0 correct, 1 wrong or failed, 2 no GPU (the runtime's own
// error is printed).
//
// BUILD: cuda_library(deps = ["@offload_cuda//:cufft"]).
#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kN = 1024, kFrequency = 37;

__global__ void Cosine(cufftComplex* x, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = make_cuFloatComplex(cospif(2.0f * k * i / n), 0.0f);
}

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e = (call);                                                              \
    if (e != cudaSuccess) {                                                              \
      std::printf("cufft_peak: %s: %s\n", e == cudaErrorNoDevice ? "no device" : "failed", \
                  cudaGetErrorString(e));                                                \
      return e == cudaErrorNoDevice ? 2 : 1;                                             \
    }                                                                                    \
  } while (0)

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cufftComplex* x;
  CHECK(cudaMalloc(&x, kN * sizeof(cufftComplex)));
  Cosine<<<(kN + 255) / 256, 256>>>(x, kN, kFrequency);
  CHECK(cudaGetLastError());
  cufftHandle plan;
  if (cufftPlan1d(&plan, kN, CUFFT_C2C, 1) != CUFFT_SUCCESS || cufftExecC2C(plan, x, x, CUFFT_FORWARD) != CUFFT_SUCCESS) {
    std::printf("cufft_peak: failed: cuFFT\n");
    return 1;
  }
  std::vector<cufftComplex> y(kN);
  CHECK(cudaMemcpy(y.data(), x, kN * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
  cufftDestroy(plan);
  for (int b = 0; b < kN; b++) {
    float want = (b == kFrequency || b == kN - kFrequency) ? kN / 2.0f : 0.0f;
    if (std::fabs(cuCabsf(y[b]) - want) > 1e-2f * kN) {
      std::printf("cufft_peak: |X[%d]| = %g, want %g\n", b, cuCabsf(y[b]), want);
      return 1;
    }
  }
  std::printf("cufft_peak: PASSED (%d points, peak at %d)\n", kN, kFrequency);
  return 0;
}
