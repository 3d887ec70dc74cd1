// C = A * B with cuBLAS's SGEMM, on matrices a kernel fills on the device;
// checked against the CPU. Exit status: 0 correct, 1 wrong or failed, 2 no
// GPU (the runtime's own error is printed).
//
// BUILD: cuda_library(deps = ["@offload_cuda//:cublas"]).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kN = 128;

// Column-major a[i + j * n]: A(i, j) = (i + 2j) mod 5, B(i, j) = (3i + j) mod 7.
__global__ void Fill(float* a, float* b, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n * n) return;
  int i = k % n, j = k / n;
  a[k] = (i + 2 * j) % 5;
  b[k] = (3 * i + j) % 7;
}

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e = (call);                                                               \
    if (e != cudaSuccess) {                                                               \
      std::printf("cublas_sgemm: %s: %s\n", e == cudaErrorNoDevice ? "no device" : "failed", \
                  cudaGetErrorString(e));                                                 \
      return e == cudaErrorNoDevice ? 2 : 1;                                              \
    }                                                                                     \
  } while (0)

int main() {
  const int n = kN, size = n * n;
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, size * sizeof(float)));
  CHECK(cudaMalloc(&b, size * sizeof(float)));
  CHECK(cudaMalloc(&c, size * sizeof(float)));
  Fill<<<(size + 255) / 256, 256>>>(a, b, n);
  CHECK(cudaGetLastError());
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublas_sgemm: failed: cublasCreate\n");
    return 1;
  }
  const float one = 1.0f, zero = 0.0f;
  if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublas_sgemm: failed: cublasSgemm\n");
    return 1;
  }
  std::vector<float> got(size);
  CHECK(cudaMemcpy(got.data(), c, size * sizeof(float), cudaMemcpyDeviceToHost));
  cublasDestroy(handle);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      float want = 0;
      for (int k = 0; k < n; k++) want += ((i + 2 * k) % 5) * ((3 * k + j) % 7);
      if (std::fabs(got[i + j * n] - want) > 1e-3f * want) {
        std::printf("cublas_sgemm: C(%d, %d) = %g, want %g\n", i, j, got[i + j * n], want);
        return 1;
      }
    }
  }
  std::printf("cublas_sgemm: PASSED (%dx%d)\n", n, n);
  return 0;
}
