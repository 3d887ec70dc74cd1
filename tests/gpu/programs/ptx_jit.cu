// A kernel shipped as PTX for compute_70 only: on a newer GPU the driver
// JIT-compiles it from the fat binary's PTX entry. Also checks a
// __device__ variable set with cudaMemcpyToSymbol and read back, and a
// grid-stride loop over more elements than threads.
#include <cstdio>
#include <vector>

#include "cuda_check.h"

const char* const kGpuTestName = "ptx_jit";

namespace {

__device__ double offset;

__global__ void Axpb(const double* x, double* y, int n, double a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = a * x[i] + offset;
  }
}

char message[160];

}  // namespace

GpuTestStatus RunGpuTest(const char** detail) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int n = 3 << 20;
  const double a = 1.5, b = -0.25;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = i * 0.5;
  double *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(offset, &b, sizeof b));
  Axpb<<<120, 256>>>(d_x, d_y, n, a);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(double), cudaMemcpyDeviceToHost));
  double back = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&back, offset, sizeof back));
  for (int i = 0; i < n; i++) {
    if (y[i] != a * x[i] + b) {
      std::snprintf(message, sizeof message, "y[%d] = %g, want %g", i, y[i], a * x[i] + b);
      *detail = message;
      return kGpuFailed;
    }
  }
  if (back != b) {
    *detail = "the __device__ variable read back differs";
    return kGpuFailed;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::snprintf(message, sizeof message, "%d elements from compute_70 PTX, JIT-compiled for sm_%d%d (%s)", n,
                prop.major, prop.minor, prop.name);
  *detail = message;
  return kGpuPassed;
}
