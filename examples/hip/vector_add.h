// Vector addition on an AMD GPU, callable from plain C++.
#ifndef EXAMPLES_HIP_VECTOR_ADD_H_
#define EXAMPLES_HIP_VECTOR_ADD_H_

// Why a call failed: no GPU (kNoDevice) or anything else (kError).
enum VectorAddStatus { kOk = 0, kError = 1, kNoDevice = 2 };

// out[i] = scale * (a[i] + b[i]) + bias on the first GPU. On failure,
// *error names the HIP runtime's error.
VectorAddStatus VectorAdd(const float* a, const float* b, float* out, int n, float scale, float bias,
                          const char** error);

#endif  // EXAMPLES_HIP_VECTOR_ADD_H_
