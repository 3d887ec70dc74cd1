// Two target regions and a device global (a float) of library omp_scale.
#include <omp.h>

#include "omp_program.h"

#pragma omp declare target
float scale_factor = 3.0f;
#pragma omp end declare target

int scale(float *x, int n) {
  int initial = 1;
#pragma omp target teams distribute parallel for map(tofrom : x[0 : n]) map(from : initial)
  for (int i = 0; i < n; i++) {
    if (i == 0) initial = omp_is_initial_device();
    x[i] *= scale_factor;
  }
  return initial;
}

int set_factor(float f) {
  scale_factor = f;
#pragma omp target update to(scale_factor)
  int initial = 1;
#pragma omp target map(from : initial)
  initial = omp_is_initial_device();
  return initial;
}
