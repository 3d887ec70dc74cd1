#include <hip/hip_runtime.h>

// fmaf from ROCm's device library (ocml).
__device__ float fma_one(float a, float x, float y) { return fmaf(a, x, y); }
