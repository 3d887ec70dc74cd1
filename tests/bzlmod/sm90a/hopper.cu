// A kernel with a Hopper-only body: setmaxnreg (register reallocation, as
// warp-specialized wgmma/TMA kernels use it) exists for sm_90a alone, so
// its cubin and PTX are those of the architecture-specific target. Other
// targets compile the plain body; every image has the kernel.
#include <cuda_runtime.h>

#include "hopper.h"

__global__ void ScaleKernel(float* x, int n, float s) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

int Scale(float* host, int n, float s, const char** error) {
  float* d = nullptr;
  cudaError_t e = cudaMalloc(&d, n * sizeof(float));
  if (e == cudaSuccess) e = cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    ScaleKernel<<<(n + 127) / 128, 128>>>(d, n, s);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  *error = cudaGetErrorString(e);
  return e == cudaSuccess ? 0 : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? 2 : 1);
}
