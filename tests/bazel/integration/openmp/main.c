// Host code only: calls the target regions of two OpenMP libraries (three
// sources, four regions, three device globals) and checks their results,
// and that every region ran on an offload device.
#include <omp.h>
#include <stdio.h>

#include "omp_program.h"

#define N 256

int main(void) {
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)i;
  float total = 0.0f;
  int initial = set_factor(2.0f);
  initial |= scale_shift_sum(x, N, &total);
  // sum(2i + offsets[i % 4]) for i < 256 = 2 * 32640 + 64 * 10.
  float want = 2.0f * 32640.0f + 640.0f;
  int bad = 0;
  for (int i = 0; i < N; i++) bad += x[i] != 2.0f * (float)i + (float)(i % 4 + 1);
  printf("offload devices: %d, a region on the initial device: %d, wrong elements: %d, sum %.1f (want %.1f)\n",
         omp_get_num_devices(), initial, bad, total, want);
  return omp_get_num_devices() > 0 && !initial && !bad && total == want ? 0 : 1;
}
