// main() of every GPU test program: runs RunGpuTest and prints one line,
// "<name>: PASSED|FAILED|no device: <detail>", that tests/gpu/run.sh reads.
#include <cstdio>

#include "gpu_test.h"

int main() {
  const char* detail = "";
  GpuTestStatus status = RunGpuTest(&detail);
  const char* outcome = status == kGpuPassed ? "PASSED" : status == kGpuNoDevice ? "no device" : "FAILED";
  std::printf("%s: %s: %s\n", kGpuTestName, outcome, detail);
  return status;
}
