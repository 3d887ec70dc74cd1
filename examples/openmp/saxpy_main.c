// OpenMP offload to GPUs: a `target teams distribute parallel for` kernel
// that calls a `declare target` function of another source (scale.c), a
// `declare target` global changed on the device and read back with `target
// update`. Built for sm_70, sm_90, gfx90a and the host CPU; the runtime
// picks the image that suits the device, and without one the regions run on
// the host (OMP_TARGET_OFFLOAD's default), with the same results.
#include <omp.h>
#include <stdio.h>

#include "scale.h"

#define N 4096

#pragma omp declare target
int launches = 40;
#pragma omp end declare target

int main(void) {
  static float x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
#pragma omp target teams distribute parallel for map(to : x) map(tofrom : y)
  for (int i = 0; i < N; i++) y[i] = saxpy(2.0f, x[i], y[i]);

#pragma omp target
  launches += 2;
#pragma omp target update from(launches)

  int bad = 0;
  for (int i = 0; i < N; i++) bad += y[i] != 2.0f * (float)i + 1.0f;
  printf("offload devices: %d, wrong elements: %d, launches: %d\n", omp_get_num_devices(), bad, launches);
  return bad == 0 && launches == 42 ? 0 : 1;
}
