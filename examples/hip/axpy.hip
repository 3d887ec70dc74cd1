#include <hip/hip_runtime.h>

__device__ float fma_one(float a, float x, float y);

// y[i] = a * x[i] + y[i]; fma_one lives in another source (relocatable
// device code, linked per target).
extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fma_one(a, x[i], y[i]);
}
