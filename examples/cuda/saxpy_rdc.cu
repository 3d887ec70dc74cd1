#include "saxpy.h"

#include <cuda_runtime.h>

#include "cuda/device_math.h"  // workspace-relative, as in a cc_library

__global__ void SaxpyKernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = Saxpy(a, x[i], y[i]);  // defined in device_math.cu
}

#define CHECK(call)                                      \
  do {                                                   \
    cudaError_t e = (call);                               \
    if (e != cudaSuccess) {                               \
      *error = cudaGetErrorString(e);                     \
      return e == cudaErrorNoDevice ? 2 : 1;              \
    }                                                    \
  } while (0)

int RunSaxpy(float a, const float* x, float* y, int n, const char** error) {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  size_t bytes = n * sizeof(float);
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, bytes));
  CHECK(cudaMalloc(&dy, bytes));
  CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
  SaxpyKernel<<<(n + 255) / 256, 256>>>(a, dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}
