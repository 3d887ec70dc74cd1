// The kernels and the host code that runs them, with CUDA's runtime API.
#include "vector_add.h"

#include <cuda_runtime.h>

// A file-local device variable set with cudaMemcpyToSymbol: its name carries
// the compilation unit ID, so host and device halves must agree on it.
static __device__ float bias;

__global__ void Add(const float* a, const float* b, float* out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale * (a[i] + b[i]) + bias;
}

#define CHECK(call)                                              \
  do {                                                           \
    cudaError_t e = (call);                                       \
    if (e != cudaSuccess) {                                       \
      *error = cudaGetErrorString(e);                             \
      return e == cudaErrorNoDevice ? kNoDevice : kError;         \
    }                                                            \
  } while (0)

VectorAddStatus VectorAdd(const float* a, const float* b, float* out, int n, float scale, float bias_value,
                          const char** error) {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  size_t bytes = n * sizeof(float);
  float *da, *db, *dout;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dout, bytes));
  CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(bias, &bias_value, sizeof(bias_value)));
  int block = 256;
  Add<<<(n + block - 1) / block, block>>>(da, db, dout, n, scale);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dout));
  return kOk;
}
