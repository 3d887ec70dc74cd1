#define __global__ __attribute__((global))
extern "C" __global__ void k(float *x) { x[0] *= SCALE; }
