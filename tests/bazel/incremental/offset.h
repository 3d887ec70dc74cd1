#ifndef INCREMENTAL_OFFSET_H_
#define INCREMENTAL_OFFSET_H_

// x[i] += b on the current device; x is device memory.
void RunOffset(float *x, float b, int n);

#endif  // INCREMENTAL_OFFSET_H_
