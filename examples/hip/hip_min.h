/* The few HIP spellings the examples need, so they compile without ROCm
   headers (the toolchain passes -nogpuinc). */
#ifndef EXAMPLES_HIP_MIN_H
#define EXAMPLES_HIP_MIN_H
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
static __device__ inline unsigned thread_index(void) {
  return __builtin_amdgcn_workitem_id_x();
}
#endif
