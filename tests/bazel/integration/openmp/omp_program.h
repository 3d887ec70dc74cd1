#ifndef OMP_PROGRAM_H_
#define OMP_PROGRAM_H_

// Each returns whether its target region ran on the initial (host) device.
int scale(float *x, int n);
int set_factor(float f);
int shift(float *x, int n);
int sum(const float *x, int n, float *out);
int scale_shift_sum(float *x, int n, float *out);

#endif  // OMP_PROGRAM_H_
