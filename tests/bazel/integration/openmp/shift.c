// A second source of library omp_scale: a device global of another size
// (a double array), so entries paired by the wrong index cannot go unseen.
#include <omp.h>

#include "omp_program.h"

#pragma omp declare target
static double offsets[4] = {1.0, 2.0, 3.0, 4.0};
#pragma omp end declare target

int shift(float *x, int n) {
  int initial = 1;
#pragma omp target teams distribute parallel for map(tofrom : x[0 : n]) map(from : initial)
  for (int i = 0; i < n; i++) {
    if (i == 0) initial = omp_is_initial_device();
    x[i] += (float)offsets[i % 4];
  }
  return initial;
}
