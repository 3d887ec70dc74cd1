// cuRAND's device API (curand_kernel.h, no library to link): XORWOW and
// Philox generators in our own kernel. Checked: uniform draws lie in
// (0, 1] with mean 1/2, normal draws have mean 0 and variance 1, and the
// same seed gives the same numbers twice while another seed does not.
#include <curand_kernel.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda_check.h"

const char* const kGpuTestName = "curand_device";

namespace {

constexpr int kThreads = 256, kBlocks = 256, kPerThread = 64;
constexpr int kCount = kThreads * kBlocks * kPerThread;

__global__ void Draw(unsigned long long seed, float* uniform, float* normal) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState xorwow;
  curandStatePhilox4_32_10_t philox;
  curand_init(seed, id, 0, &xorwow);
  curand_init(seed, id, 0, &philox);
  for (int k = 0; k < kPerThread; k++) {
    uniform[id * kPerThread + k] = curand_uniform(&xorwow);
    normal[id * kPerThread + k] = curand_normal(&philox);
  }
}

char message[160];

GpuTestStatus Run(unsigned long long seed, std::vector<float>* uniform, std::vector<float>* normal,
                  const char** detail) {
  float *d_uniform, *d_normal;
  CUDA_CHECK(cudaMalloc(&d_uniform, kCount * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_normal, kCount * sizeof(float)));
  Draw<<<kBlocks, kThreads>>>(seed, d_uniform, d_normal);
  CUDA_CHECK(cudaGetLastError());
  uniform->resize(kCount);
  normal->resize(kCount);
  CUDA_CHECK(cudaMemcpy(uniform->data(), d_uniform, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(normal->data(), d_normal, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_uniform));
  CUDA_CHECK(cudaFree(d_normal));
  return kGpuPassed;
}

}  // namespace

GpuTestStatus RunGpuTest(const char** detail) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  std::vector<float> u1, n1, u2, n2, u3, n3;
  GpuTestStatus s;
  if ((s = Run(2026, &u1, &n1, detail)) != kGpuPassed) return s;
  if ((s = Run(2026, &u2, &n2, detail)) != kGpuPassed) return s;
  if ((s = Run(7, &u3, &n3, detail)) != kGpuPassed) return s;
  double sum_u = 0, sum_n = 0, sum_n2 = 0;
  for (int i = 0; i < kCount; i++) {
    if (!(u1[i] > 0.0f && u1[i] <= 1.0f) || !std::isfinite(n1[i])) {
      std::snprintf(message, sizeof message, "draw %d: uniform %g, normal %g", i, u1[i], n1[i]);
      *detail = message;
      return kGpuFailed;
    }
    sum_u += u1[i];
    sum_n += n1[i];
    sum_n2 += double(n1[i]) * n1[i];
  }
  double mean_u = sum_u / kCount, mean_n = sum_n / kCount, var_n = sum_n2 / kCount - mean_n * mean_n;
  bool same = u1 == u2 && n1 == n2, differ = u1 != u3 && n1 != n3;
  std::snprintf(message, sizeof message,
                "%d draws: uniform mean %.5f, normal mean %.5f variance %.5f, same seed same numbers: %s, "
                "other seed other numbers: %s",
                kCount, mean_u, mean_n, var_n, same ? "yes" : "no", differ ? "yes" : "no");
  *detail = message;
  bool ok = std::fabs(mean_u - 0.5) < 0.002 && std::fabs(mean_n) < 0.005 && std::fabs(var_n - 1) < 0.01 && same &&
            differ;
  return ok ? kGpuPassed : kGpuFailed;
}
