// Adds two vectors in an OpenMP target region and checks where it ran: on
// the host-CPU offload device (a device of its own, not the initial device).
#include <omp.h>
#include <stdio.h>

#define N 1024

int main(void) {
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i;
  }
  int initial = -1;
#pragma omp target map(to : a, b) map(from : c, initial)
  {
    initial = omp_is_initial_device();
#pragma omp parallel for
    for (int i = 0; i < N; i++) c[i] = a[i] + b[i];
  }
  int bad = 0;
  for (int i = 0; i < N; i++) bad += c[i] != 3.0f * (float)i;
  printf("offload devices: %d, target region on the initial device: %d, wrong sums: %d\n",
         omp_get_num_devices(), initial, bad);
  return omp_get_num_devices() > 0 && initial == 0 && bad == 0 ? 0 : 1;
}
