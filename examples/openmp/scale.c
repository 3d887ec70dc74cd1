#include "scale.h"

#pragma omp declare target
float saxpy(float a, float x, float y) { return a * x + y; }
#pragma omp end declare target
