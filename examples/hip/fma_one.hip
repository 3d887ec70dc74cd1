#include "hip_min.h"

__device__ float fma_one(float a, float x, float y) { return a * x + y; }
