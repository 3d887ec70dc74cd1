// OpenMP target offload on an NVIDIA GPU, built by openmp_library and
// offload_device_link with clang-16 (LLVM 16's device runtime and
// libomptarget): a `target teams distribute parallel for` saxpy with a sum
// reduction, a `declare target` function and global, `target update`.
// Checked against the CPU. The program must prove where the regions ran:
// with the host-CPU offload device or a silent host fallback the results
// would be right too, so each region records whether it ran on a GPU
// (`declare variant` for device kind gpu) and not on the initial device.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_test.h"

#ifdef OPENMP_FLEET
const char* const kGpuTestName = "openmp_fleet";
#else
const char* const kGpuTestName = "openmp_target";
#endif

#pragma omp declare target
static int gpu_yes(void) { return 1; }
// 1 in code compiled for a GPU (nvptx64, amdgcn), 0 on CPUs.
#pragma omp declare variant(gpu_yes) match(device = {kind(gpu)})
static int on_gpu(void) { return 0; }

float saxpy(float a, float x, float y) { return a * x + y; }

int kernel_runs = 40;
#pragma omp end declare target

namespace {

constexpr int kN = 1 << 20;
char detail[256];

}  // namespace

GpuTestStatus RunGpuTest(const char** out) {
  *out = detail;
  // A region that cannot offload must fail, not run on the host; run.sh sets
  // it too (the runtime may read it before main).
  setenv("OMP_TARGET_OFFLOAD", "MANDATORY", 0);
  int devices = omp_get_num_devices();
  if (devices == 0) {
    snprintf(detail, sizeof detail,
             "omp_get_num_devices() is 0: libomptarget found no GPU (its CUDA plugin needs libcuda.so and a device)");
    return kGpuNoDevice;
  }
  float* x = static_cast<float*>(malloc(kN * sizeof(float)));
  float* y = static_cast<float*>(malloc(kN * sizeof(float)));
  for (int i = 0; i < kN; i++) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = 1.0f;
  }
  int gpu = -1, initial = -1, teams = 0;
  double sum = 0;
#pragma omp target teams distribute parallel for map(to : x[0:kN]) map(tofrom : y[0:kN]) \
    map(from : gpu, initial, teams) reduction(+ : sum)
  for (int i = 0; i < kN; i++) {
    if (i == 0) {
      gpu = on_gpu();
      initial = omp_is_initial_device();
      teams = omp_get_num_teams();
    }
    y[i] = saxpy(2.0f, x[i], y[i]);
    sum += y[i];
  }
#pragma omp target map(tofrom : gpu)
  {
    kernel_runs += 2;
    gpu = gpu && on_gpu();
  }
#pragma omp target update from(kernel_runs)

  double want = 0;
  int bad = 0;
  for (int i = 0; i < kN; i++) {
    float w = 2.0f * static_cast<float>(i % 1000) + 1.0f;
    bad += y[i] != w;
    want += w;
  }
  free(x);
  free(y);
  if (gpu != 1 || initial != 0) {
    snprintf(detail, sizeof detail, "the target regions did not run on a GPU (on_gpu %d, omp_is_initial_device %d, %d devices)",
             gpu, initial, devices);
    return kGpuFailed;
  }
  if (bad != 0 || sum != want || kernel_runs != 42) {
    snprintf(detail, sizeof detail, "%d wrong elements, sum %.0f (want %.0f), kernel_runs %d (want 42)", bad, sum, want,
             kernel_runs);
    return kGpuFailed;
  }
  snprintf(detail, sizeof detail,
           "saxpy of %d floats and their sum on GPU device %d of %d (%d teams), declare target global updated",
           kN, omp_get_default_device(), devices, teams);
  return kGpuPassed;
}
