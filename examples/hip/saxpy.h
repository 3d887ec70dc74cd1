// y[i] = a * x[i] + y[i] on the first GPU, by a kernel that calls a
// __device__ function of another library.
#ifndef EXAMPLES_HIP_SAXPY_H_
#define EXAMPLES_HIP_SAXPY_H_

// 0: done; 2: no GPU; 1: another failure. *error names the runtime's error.
int RunSaxpy(float a, const float* x, float* y, int n, const char** error);

#endif  // EXAMPLES_HIP_SAXPY_H_
