// Thrust on the GPU: sort a million keys, then sum them, checked against the
// CPU. Exit status: 0 correct, 1 wrong or failed, 2 no GPU (the runtime's
// own error is printed).
//
// BUILD: cuda_library(deps = ["@offload_cuda//:thrust"]): Thrust, CUB and
// libcu++ from the SDK repository, declared (a remote worker needs no
// /usr/include/thrust).
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/system_error.h>

#include <cstdio>
#include <vector>

int main() {
  const int n = 1 << 20;
  std::vector<unsigned> keys(n);
  unsigned x = 12345;
  for (auto& k : keys) k = (x = x * 1664525u + 1013904223u) >> 8;
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess) {
    std::printf("thrust_sort_reduce: %s: %s\n", e == cudaErrorNoDevice ? "no device" : "failed", cudaGetErrorString(e));
    return e == cudaErrorNoDevice ? 2 : 1;
  }
  try {
    thrust::device_vector<unsigned> d(keys.begin(), keys.end());
    thrust::sort(d.begin(), d.end());
    unsigned long long sum = thrust::reduce(d.begin(), d.end(), 0ull);
    std::vector<unsigned> sorted(n);
    thrust::copy(d.begin(), d.end(), sorted.begin());
    unsigned long long want = 0;
    for (unsigned k : keys) want += k;
    for (int i = 1; i < n; i++) {
      if (sorted[i - 1] > sorted[i]) {
        std::printf("thrust_sort_reduce: not sorted at %d\n", i);
        return 1;
      }
    }
    if (sum != want) {
      std::printf("thrust_sort_reduce: sum %llu, want %llu\n", sum, want);
      return 1;
    }
  } catch (const thrust::system_error& err) {
    std::printf("thrust_sort_reduce: failed: %s\n", err.what());
    return 1;
  }
  std::printf("thrust_sort_reduce: PASSED (%d keys)\n", n);
  return 0;
}
