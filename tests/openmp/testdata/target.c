#include <stdio.h>
#include <omp.h>

#pragma omp declare target
int device_counter = 40;
int scale(int x) { return 2 * x; }
#pragma omp end declare target

int main(void) {
  int a[64], sum = 0, initial = -1;
  for (int i = 0; i < 64; i++)
    a[i] = i;
#pragma omp target map(to: a) map(tofrom: sum, initial)
  {
    initial = omp_is_initial_device();
    for (int i = 0; i < 64; i++)
      sum += scale(a[i]);
    device_counter += 2;
  }
#pragma omp target update from(device_counter)
  printf("initial=%d sum=%d counter=%d\n", initial, sum, device_counter);
  return initial != 0 || sum != 4032 || device_counter != 42;
}
