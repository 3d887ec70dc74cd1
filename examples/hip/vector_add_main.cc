// Checks VectorAdd against the CPU. Exit status: 0 correct, 1 wrong or
// failed, 2 no GPU (the runtime's own error is printed).
#include <cmath>
#include <cstdio>
#include <vector>

#include "vector_add.h"

int main() {
  const int n = 1 << 20;
  const float scale = 2.0f, bias = 0.5f;
  std::vector<float> a(n), b(n), out(n);
  for (int i = 0; i < n; i++) {
    a[i] = i * 0.25f;
    b[i] = 1.0f - i * 0.125f;
  }
  const char* error = "";
  VectorAddStatus status = VectorAdd(a.data(), b.data(), out.data(), n, scale, bias, &error);
  if (status != kOk) {
    std::printf("vector_add: %s: %s\n", status == kNoDevice ? "no device" : "failed", error);
    return status;
  }
  for (int i = 0; i < n; i++) {
    float want = scale * (a[i] + b[i]) + bias;
    if (std::fabs(out[i] - want) > 1e-3f * std::fabs(want) + 1e-3f) {
      std::printf("vector_add: out[%d] = %g, want %g\n", i, out[i], want);
      return 1;
    }
  }
  std::printf("vector_add: PASSED (%d elements)\n", n);
  return 0;
}
