#include "hip_min.h"

__device__ float fma_one(float a, float x, float y);

// y[i] = a * x[i] + y[i]; fma_one lives in another source (relocatable
// device code, linked per target).
extern "C" __global__ void axpy(float a, const float *x, float *y) {
  unsigned i = thread_index();
  y[i] = fma_one(a, x[i], y[i]);
}
