// Library omp_sum, which depends on omp_scale: a reduction in a target
// region, and a host function that calls into omp_scale.
#include <omp.h>

#include "omp_program.h"

#pragma omp declare target
static int calls = 0;
#pragma omp end declare target

int sum(const float *x, int n, float *out) {
  float total = 0.0f;
  int initial = 1;
#pragma omp target teams distribute parallel for reduction(+ : total) map(to : x[0 : n]) map(tofrom : initial)
  for (int i = 0; i < n; i++) {
    if (i == 0) {
      initial = omp_is_initial_device();
      calls++;
    }
    total += x[i];
  }
  *out = total;
  return initial;
}

int scale_shift_sum(float *x, int n, float *out) {
  return scale(x, n) | shift(x, n) | sum(x, n, out);
}
