#include <cstdio>

#include "hopper.h"

int main() {
  float x[256];
  for (int i = 0; i < 256; i++) x[i] = i;
  const char* error = "";
  int status = Scale(x, 256, 2.0f, &error);
  if (status != 0) {
    std::printf("hopper: %s: %s\n", status == 2 ? "no device" : "failed", error);
    return status;
  }
  for (int i = 0; i < 256; i++) {
    if (x[i] != 2.0f * i) {
      std::printf("hopper: x[%d] = %g\n", i, x[i]);
      return 1;
    }
  }
  std::printf("hopper: PASSED\n");
  return 0;
}
