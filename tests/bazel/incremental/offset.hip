#include "offset.h"

#include <hip/hip_runtime.h>

// x[i] += b, one thread per element.
__global__ void Offset(float *x, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += b;
}

void RunOffset(float *x, float b, int n) { Offset<<<(n + 255) / 256, 256>>>(x, b, n); }
