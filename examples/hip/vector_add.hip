// The kernels and the host code that runs them, with ROCm's runtime API.
#include "vector_add.h"

#include <hip/hip_runtime.h>

// A file-local device variable set with hipMemcpyToSymbol: its name carries
// the compilation unit ID, so host and device halves must agree on it.
static __device__ float bias;

__global__ void Add(const float* a, const float* b, float* out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale * (a[i] + b[i]) + bias;
}

#define CHECK(call)                                              \
  do {                                                           \
    hipError_t e = (call);                                       \
    if (e != hipSuccess) {                                       \
      *error = hipGetErrorString(e);                             \
      return e == hipErrorNoDevice ? kNoDevice : kError;         \
    }                                                            \
  } while (0)

VectorAddStatus VectorAdd(const float* a, const float* b, float* out, int n, float scale, float bias_value,
                          const char** error) {
  int devices = 0;
  CHECK(hipGetDeviceCount(&devices));
  size_t bytes = n * sizeof(float);
  float *da, *db, *dout;
  CHECK(hipMalloc(&da, bytes));
  CHECK(hipMalloc(&db, bytes));
  CHECK(hipMalloc(&dout, bytes));
  CHECK(hipMemcpy(da, a, bytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b, bytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(bias), &bias_value, sizeof(bias_value)));
  int block = 256;
  Add<<<(n + block - 1) / block, block>>>(da, db, dout, n, scale);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out, dout, bytes, hipMemcpyDeviceToHost));
  CHECK(hipFree(da));
  CHECK(hipFree(db));
  CHECK(hipFree(dout));
  return kOk;
}
