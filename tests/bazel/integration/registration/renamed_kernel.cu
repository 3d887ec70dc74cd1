// A kernel renamed in one image, on purpose: the sm_90 and compute_90
// device compiles name it ScaleSm90, the host half registers Scale. The
// same kind of mistake as CUB's namespace named after __CUDA_ARCH_LIST__.
// offload_registration_test must fail on it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#define SCALE ScaleSm90
#else
#define SCALE Scale
#endif

extern "C" __global__ void SCALE(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void LaunchScale(float* x, float a, int n) { SCALE<<<(n + 255) / 256, 256>>>(x, a, n); }
