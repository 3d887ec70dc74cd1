#include "cuda_min.h"

// y[i] = a * x[i] + y[i] for one block of threads.
extern "C" __global__ void saxpy(float a, const float *x, float *y) {
  unsigned i = thread_index();
  y[i] = a * x[i] + y[i];
}
