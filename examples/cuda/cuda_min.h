/* The few CUDA spellings the example needs, so it compiles without a CUDA
   install (the toolchain passes -nocudainc -nocudalib). */
#ifndef EXAMPLES_CUDA_MIN_H
#define EXAMPLES_CUDA_MIN_H
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
static __device__ inline unsigned thread_index(void) {
  return __nvvm_read_ptx_sreg_tid_x();
}
#endif
