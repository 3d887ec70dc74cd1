#include "saxpy.h"

#include <hip/hip_runtime.h>

#include "hip/device_math.h"  // workspace-relative, as in a cc_library

__global__ void SaxpyKernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = Saxpy(a, x[i], y[i]);  // defined in device_math.hip
}

#define CHECK(call)                                      \
  do {                                                   \
    hipError_t e = (call);                               \
    if (e != hipSuccess) {                               \
      *error = hipGetErrorString(e);                     \
      return e == hipErrorNoDevice ? 2 : 1;              \
    }                                                    \
  } while (0)

int RunSaxpy(float a, const float* x, float* y, int n, const char** error) {
  int devices = 0;
  CHECK(hipGetDeviceCount(&devices));
  size_t bytes = n * sizeof(float);
  float *dx, *dy;
  CHECK(hipMalloc(&dx, bytes));
  CHECK(hipMalloc(&dy, bytes));
  CHECK(hipMemcpy(dx, x, bytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y, bytes, hipMemcpyHostToDevice));
  SaxpyKernel<<<(n + 255) / 256, 256>>>(a, dx, dy, n);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(y, dy, bytes, hipMemcpyDeviceToHost));
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  return 0;
}
