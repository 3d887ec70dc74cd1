// A block-wide sum in shared memory: the barriers and fences real kernels
// use. ROCm 5's headers implement __syncthreads and __threadfence with
// functions of its hip.bc device library (__atomic_work_item_fence), which
// clang 22 does not link by itself; the toolchain links it.
#include <hip/hip_runtime.h>

constexpr int kBlock = 256;

__global__ void BlockSum(const float* in, float* partial, unsigned* done, float* total, int n) {
  __shared__ float sums[kBlock];
  int i = blockIdx.x * kBlock + threadIdx.x;
  sums[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  partial[blockIdx.x] = sums[0];
  // The last block to finish adds the partial sums: its reads must see
  // every other block's write.
  __threadfence();
  if (atomicAdd(done, 1u) == gridDim.x - 1) {
    float t = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
}
