#include "device_math.h"

#include <cuda_runtime.h>

__device__ float Saxpy(float a, float x, float y) { return a * x + y; }
