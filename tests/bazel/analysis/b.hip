#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ float twice(float a);
extern "C" __global__ void k2(float *x) { x[0] = twice(x[0]); }
