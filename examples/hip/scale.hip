#include "hip_min.h"

// x[i] *= a for one block of threads.
extern "C" __global__ void scale(float *x, float a) {
  x[thread_index()] *= a;
}
