#ifndef SCALE_H
#define SCALE_H
#pragma omp declare target
// a * x + y, compiled for every offload device (scale.c).
float saxpy(float a, float x, float y);
#pragma omp end declare target
#endif
