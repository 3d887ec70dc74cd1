// A kernel that only device code can launch: it exists only in the device
// compiles, so the host half neither registers it nor has a launch stub
// for it (as Thrust's device-side algorithm paths instantiate kernels).
// offload_registration_test passes and its report says why.
extern "C" __global__ void Fill(float* x, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

#ifdef __CUDA_ARCH__
extern "C" __global__ void DeviceOnly(float* x) { x[0] = 0; }
#endif

void LaunchFill(float* x, float v, int n) { Fill<<<(n + 255) / 256, 256>>>(x, v, n); }
