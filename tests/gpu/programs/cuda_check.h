// CUDA_CHECK for RunGpuTest bodies: on an error, the runtime's string
// becomes the detail, and "no device" is told apart from a failure.
#ifndef RULES_OFFLOAD_TESTS_GPU_CUDA_CHECK_H_
#define RULES_OFFLOAD_TESTS_GPU_CUDA_CHECK_H_

#include <cuda_runtime.h>

#include "gpu_test.h"

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t cuda_check_error = (call);                                      \
    if (cuda_check_error != cudaSuccess) {                                      \
      *detail = cudaGetErrorString(cuda_check_error);                           \
      return cuda_check_error == cudaErrorNoDevice ||                           \
                     cuda_check_error == cudaErrorInsufficientDriver            \
                 ? kGpuNoDevice                                                 \
                 : kGpuFailed;                                                  \
    }                                                                           \
  } while (0)

#endif  // RULES_OFFLOAD_TESTS_GPU_CUDA_CHECK_H_
