// Checks RunSaxpy against the CPU. Exit status: 0 correct, 1 wrong or
// failed, 2 no GPU (the runtime's own error is printed).
#include <cmath>
#include <cstdio>
#include <vector>

#include "saxpy.h"

int main() {
  const int n = 100000;
  const float a = 3.0f;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; i++) {
    x[i] = i * 0.5f;
    y[i] = 2.0f - i;
    want[i] = a * x[i] + y[i];
  }
  const char* error = "";
  int status = RunSaxpy(a, x.data(), y.data(), n, &error);
  if (status != 0) {
    std::printf("saxpy: %s: %s\n", status == 2 ? "no device" : "failed", error);
    return status;
  }
  for (int i = 0; i < n; i++) {
    if (std::fabs(y[i] - want[i]) > 1e-3f * std::fabs(want[i]) + 1e-3f) {
      std::printf("saxpy: y[%d] = %g, want %g\n", i, y[i], want[i]);
      return 1;
    }
  }
  std::printf("saxpy: PASSED (%d elements)\n", n);
  return 0;
}
