// rocRAND's device API: each thread draws uniform floats from its own
// Philox subsequence; the host checks that they lie in (0, 1] and average
// about 1/2. Exit status: 0 correct, 1 wrong or failed, 2 no GPU (the
// runtime's own error is printed).
//
// BUILD: hip_library(deps = ["@offload_rocm//:rocrand"]).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <rocrand/rocrand_kernel.h>
#include <vector>

constexpr int kDraws = 16;

__global__ void Draw(unsigned long long seed, float* out, int threads) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= threads) return;
  rocrand_state_philox4x32_10 state;
  rocrand_init(seed, id, 0, &state);
  for (int i = 0; i < kDraws; i++) out[id * kDraws + i] = rocrand_uniform(&state);
}

#define CHECK(call)                                                                               \
  do {                                                                                            \
    hipError_t e = (call);                                                                        \
    if (e != hipSuccess) {                                                                        \
      std::printf("rocrand_device: %s: %s: %s\n", e == hipErrorNoDevice ? "no device" : "failed", \
                  hipGetErrorName(e), hipGetErrorString(e));                                      \
      return e == hipErrorNoDevice ? 2 : 1;                                                       \
    }                                                                                             \
  } while (0)

int main() {
  const int threads = 4096, n = threads * kDraws;
  std::vector<float> out(n);
  int devices = 0;
  CHECK(hipGetDeviceCount(&devices));
  float* dout;
  CHECK(hipMalloc(&dout, n * sizeof(float)));
  Draw<<<threads / 256, 256>>>(1234, dout, threads);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
  double sum = 0;
  for (float x : out) {
    if (!(x > 0.0f && x <= 1.0f)) {
      std::printf("rocrand_device: %g is not in (0, 1]\n", x);
      return 1;
    }
    sum += x;
  }
  if (sum / n < 0.49 || sum / n > 0.51) {
    std::printf("rocrand_device: mean %g, want about 0.5\n", sum / n);
    return 1;
  }
  std::printf("rocrand_device: PASSED (%d draws, mean %.4f)\n", n, sum / n);
  return 0;
}
