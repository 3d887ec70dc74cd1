// A second OpenMP library for the device link tests.
int twice(int a) {
  int r = 0;
#pragma omp target map(from : r)
  r = 2 * a;
  return r;
}
