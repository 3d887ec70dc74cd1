// A __device__ function in one library, called by kernels of another:
// relocatable device code (rdc = True), linked once per program.
#ifndef EXAMPLES_CUDA_DEVICE_MATH_H_
#define EXAMPLES_CUDA_DEVICE_MATH_H_

__device__ float Saxpy(float a, float x, float y);

#endif  // EXAMPLES_CUDA_DEVICE_MATH_H_
