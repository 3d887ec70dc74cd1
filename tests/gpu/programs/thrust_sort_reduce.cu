// Thrust on the GPU: sort a million pseudo-random keys, reduce them and
// transform-reduce their squares, checked against the CPU. Every Thrust
// call launches CUB kernels whose names carry CUB's inline namespace
// (cub::CUB_101702_<__CUDA_ARCH_LIST__>_NS): the host half registers them
// under the library's whole target list, so each device image must have
// been compiled with that same list, or the launch fails with "invalid
// device function" (issue 29).
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <vector>

#include "cuda_check.h"

const char* const kGpuTestName = "thrust_sort_reduce";

namespace {

struct Square {
  __host__ __device__ int64_t operator()(uint32_t x) const { return int64_t(x % 1000) * int64_t(x % 1000); }
};

char message[256];

}  // namespace

GpuTestStatus RunGpuTest(const char** detail) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int n = 1 << 20;
  std::vector<uint32_t> keys(n);
  uint32_t x = 12345;
  for (auto& k : keys) {
    x = x * 1664525u + 1013904223u;  // Numerical Recipes' LCG: any fixed sequence will do
    k = x >> 4;
  }
  try {
    thrust::device_vector<uint32_t> d(keys.begin(), keys.end());
    thrust::sort(d.begin(), d.end());
    uint64_t sum = thrust::reduce(d.begin(), d.end(), uint64_t(0), thrust::plus<uint64_t>());
    int64_t squares = thrust::transform_reduce(d.begin(), d.end(), Square(), int64_t(0), thrust::plus<int64_t>());
    thrust::host_vector<uint32_t> sorted = d;

    std::sort(keys.begin(), keys.end());
    uint64_t want_sum = std::accumulate(keys.begin(), keys.end(), uint64_t(0));
    int64_t want_squares = 0;
    for (uint32_t k : keys) want_squares += Square()(k);
    for (int i = 0; i < n; i++) {
      if (sorted[i] != keys[i]) {
        std::snprintf(message, sizeof message, "sorted[%d] = %u, want %u", i, sorted[i], keys[i]);
        *detail = message;
        return kGpuFailed;
      }
    }
    if (sum != want_sum || squares != want_squares) {
      std::snprintf(message, sizeof message, "reduce %llu, want %llu; squares %lld, want %lld",
                    (unsigned long long)sum, (unsigned long long)want_sum, (long long)squares,
                    (long long)want_squares);
      *detail = message;
      return kGpuFailed;
    }
  } catch (const std::exception& e) {
    std::snprintf(message, sizeof message, "thrust: %s", e.what());
    *detail = message;
    return kGpuFailed;
  }
  *detail = "sort, reduce and transform_reduce of 1048576 keys match the CPU";
  return kGpuPassed;
}
