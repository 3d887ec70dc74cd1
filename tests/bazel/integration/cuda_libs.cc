// Calls one function of each CUDA library target it links (shared or
// static), compiles a kernel with NVRTC, and prints every shared library the
// loader mapped, so check_libs.sh can tell where each came from.
#include <cublas_v2.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <link.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>

static int PrintLoaded(struct dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name && info->dlpi_name[0]) std::printf("loaded %s\n", info->dlpi_name);
  return 0;
}

int main() {
  cublasHandle_t blas;
  std::printf("cublasCreate %d\n", static_cast<int>(cublasCreate(&blas)));
  cufftHandle fft;
  std::printf("cufftPlan1d %d\n", static_cast<int>(cufftPlan1d(&fft, 64, CUFFT_C2C, 1)));
  curandGenerator_t gen;
  std::printf("curandCreateGenerator %d\n", static_cast<int>(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT)));
  cusparseHandle_t sparse;
  std::printf("cusparseCreate %d\n", static_cast<int>(cusparseCreate(&sparse)));
  cusolverDnHandle_t solver;
  std::printf("cusolverDnCreate %d\n", static_cast<int>(cusolverDnCreate(&solver)));

  // NVRTC needs its builtins library (dlopened by name) to compile anything.
  const char* src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }";
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  if (r == NVRTC_SUCCESS) r = nvrtcCompileProgram(prog, 0, nullptr);
  size_t ptx_size = 0;
  if (r == NVRTC_SUCCESS) r = nvrtcGetPTXSize(prog, &ptx_size);
  std::printf("nvrtc %s, PTX %zu bytes\n", nvrtcGetErrorString(r), ptx_size);
  dl_iterate_phdr(PrintLoaded, nullptr);
  return r == NVRTC_SUCCESS && ptx_size > 0 ? 0 : 1;
}
