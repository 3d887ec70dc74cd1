// CUB's BlockReduce and BlockScan inside our own kernel: per block of 256
// threads a sum and an inclusive prefix sum, checked against the CPU.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdio>
#include <vector>

#include "cuda_check.h"

const char* const kGpuTestName = "cub_block_reduce";

namespace {

constexpr int kThreads = 256;

__global__ void BlockSums(const int* in, int* sums, int* scans) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ typename Scan::TempStorage scan_storage;
  int i = blockIdx.x * kThreads + threadIdx.x;
  int v = in[i];
  int sum = Reduce(reduce_storage).Sum(v);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  int prefix;
  Scan(scan_storage).InclusiveSum(v, prefix);
  scans[i] = prefix;
}

char message[160];

}  // namespace

GpuTestStatus RunGpuTest(const char** detail) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int blocks = 4096, n = blocks * kThreads;
  std::vector<int> in(n), sums(blocks), scans(n);
  for (int i = 0; i < n; i++) in[i] = (i * 7919) % 1000 - 500;
  int *d_in, *d_sums, *d_scans;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_scans, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  BlockSums<<<blocks, kThreads>>>(d_in, d_sums, d_scans);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(scans.data(), d_scans, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    int run = 0;
    for (int t = 0; t < kThreads; t++) {
      int i = b * kThreads + t;
      run += in[i];
      if (scans[i] != run) {
        std::snprintf(message, sizeof message, "scan[%d] = %d, want %d", i, scans[i], run);
        *detail = message;
        return kGpuFailed;
      }
    }
    if (sums[b] != run) {
      std::snprintf(message, sizeof message, "sum of block %d = %d, want %d", b, sums[b], run);
      *detail = message;
      return kGpuFailed;
    }
  }
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_sums));
  CUDA_CHECK(cudaFree(d_scans));
  *detail = "BlockReduce and BlockScan of 4096 blocks match the CPU";
  return kGpuPassed;
}
