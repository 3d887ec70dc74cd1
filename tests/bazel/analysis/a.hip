#define __device__ __attribute__((device))
__device__ float twice(float a) { return 2 * a; }
