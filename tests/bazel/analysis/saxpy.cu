#define __global__ __attribute__((global))
extern "C" __global__ void saxpy(float a, float *x, float *y) { y[0] = a * x[0] + y[0]; }
