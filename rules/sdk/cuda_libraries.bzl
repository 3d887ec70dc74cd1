"""The CUDA toolkit's libraries: the targets of @offload_cuda besides :cuda.

Named as rules_cuda (@cuda//:cublas) and XLA (@cuda_cublas//:cublasLt) name
them. Link lines checked with CUDA 11.8 (Debian 12's nvidia-cuda-dev): a
static cuBLAS needs cuBLASLt's archive and libculibos.a; a static cuSOLVER
libmetis_static.a (METIS_NodeND) and the static cuSPARSE and cuBLAS; a
static NVRTC its builtins and libnvptxcompiler_static.a; CUDA 13.0's file
names (its lib64 listing) are the same but for libcufft_static_nocallback.a,
which it no longer has. libcufft_static.a
holds relocatable device code (cuFFT's callbacks) and needs a device link
its own objects do not come with: :cufft_static says so and names the
variant that links plainly.
"""

load(":libraries.bzl", "library")

# nvcc's default link of the static runtime.
_STATIC_RUNTIME_LINKOPTS = ["-ldl", "-lrt", "-lpthread"]

# Header-only libraries in their own Debian packages (cuda_cccl in NVIDIA's
# components); the CUDA compiles declare them too, so that a compile never
# reads /usr/include/thrust.
CCCL_DEBIAN_PACKAGES = ["libthrust-dev", "libcub-dev", "libcu++-dev"]

_CCCL = dict(component = "cuda_cccl", debian = ["libthrust-dev", "libcub-dev", "libcu++-dev"])
_DEV = ["nvidia-cuda-dev"]

CUDA_LIBRARIES = [
    library("cudart", shared = "libcudart.so", deps = ["cuda_headers"], component = "cuda_cudart", debian = _DEV),
    library("cudart_static", static = ["libcudart_static.a"], linkopts = _STATIC_RUNTIME_LINKOPTS, deps = ["cuda_headers"], component = "cuda_cudart", debian = _DEV),
    library("culibos", static = ["libculibos.a"], component = "cuda_cudart", debian = _DEV),
    library("libcudacxx", header_dirs = ["cuda", "nv"], **_CCCL),
    library("cub", header_dirs = ["cub"], deps = ["libcudacxx"], **_CCCL),
    library("thrust", header_dirs = ["thrust"], deps = ["cub"], **_CCCL),
    library("cublasLt", headers = ["cublasLt.h"], shared = "libcublasLt.so", deps = ["cuda_headers"], component = "libcublas", debian = _DEV),
    library("cublas", headers = ["cublas.h", "cublas_api.h", "cublas_v2.h", "cublasXt.h"], shared = "libcublas.so", deps = ["cublasLt", "cuda_headers"], component = "libcublas", debian = _DEV),
    library("cublasLt_static", headers = ["cublasLt.h"], static = ["libcublasLt_static.a"], deps = ["culibos", "cudart_static"], component = "libcublas", debian = _DEV),
    library("cublas_static", headers = ["cublas.h", "cublas_api.h", "cublas_v2.h", "cublasXt.h"], static = ["libcublas_static.a"], deps = ["cublasLt_static"], component = "libcublas", debian = _DEV),
    library("cufft", headers = ["cufft.h", "cufftXt.h", "cudalibxt.h"], shared = "libcufft.so", deps = ["cuda_headers"], component = "libcufft", debian = _DEV),
    library("cufftw", headers = ["cufftw.h"], shared = "libcufftw.so", deps = ["cufft"], component = "libcufft", debian = _DEV),
    library("cufft_static_nocallback", headers = ["cufft.h", "cufftXt.h", "cudalibxt.h"], static = ["libcufft_static_nocallback.a"], deps = ["culibos", "cudart_static"], component = "libcufft", debian = _DEV, removed = "13.0", absent = "use :cufft, or a CUDA 12"),
    library("cufftw_static", headers = ["cufftw.h"], static = ["libcufftw_static.a"], deps = ["cufft_static_nocallback"], component = "libcufft", debian = _DEV),
    library("curand", headers = ["curand.h", "curand*.h"], shared = "libcurand.so", deps = ["cuda_headers"], component = "libcurand", debian = _DEV),
    library("curand_static", headers = ["curand.h", "curand*.h"], static = ["libcurand_static.a"], deps = ["culibos", "cudart_static"], component = "libcurand", debian = _DEV),
    library("cusparse", headers = ["cusparse.h", "cusparse_v2.h"], shared = "libcusparse.so", deps = ["cuda_headers"], component = "libcusparse", debian = _DEV),
    library("cusparse_static", headers = ["cusparse.h", "cusparse_v2.h"], static = ["libcusparse_static.a"], deps = ["culibos", "cudart_static"], component = "libcusparse", debian = _DEV),
    library("cusolver", headers = ["cusolverDn.h", "cusolver*.h"], shared = "libcusolver.so", deps = ["cublas", "cublasLt", "cusparse", "cuda_headers"], component = "libcusolver", debian = _DEV),
    library("cusolver_static", headers = ["cusolverDn.h", "cusolver*.h"], static = ["libcusolver_static.a", "libcusolver_lapack_static.a", "libmetis_static.a"], deps = ["cusparse_static", "cublas_static"], component = "libcusolver", debian = _DEV),
    library("nvrtc", headers = ["nvrtc.h"], shared = "libnvrtc.so", links_shared = ["libnvrtc-builtins.so"], deps = ["cuda_headers"], component = "cuda_nvrtc", debian = _DEV),
    library("nvrtc_static", headers = ["nvrtc.h"], static = ["libnvrtc_static.a", "libnvrtc-builtins_static.a", "libnvptxcompiler_static.a"], linkopts = ["-ldl", "-lpthread"], deps = ["cuda_headers"], component = "cuda_nvrtc", debian = _DEV),
    library("nvjitlink", headers = ["nvJitLink.h"], shared = "libnvJitLink.so", deps = ["cuda_headers"], component = "libnvjitlink", added = "12.0", absent = "nvJitLink came with CUDA 12; use a CUDA 12 or later"),
    library("nvjitlink_static", headers = ["nvJitLink.h"], static = ["libnvJitLink_static.a"], deps = ["cuda_headers"], component = "libnvjitlink", added = "12.0", absent = "nvJitLink came with CUDA 12; use a CUDA 12 or later"),
]

# Never a plain cc_library: its objects need an nvlink device link.
CUFFT_STATIC_ERROR = ("libcufft_static.a holds relocatable device code (cuFFT's callbacks) that needs an nvlink " +
                      "device link (__cudaRegisterLinkedBinary_* undefined otherwise); use :cufft_static_nocallback " +
                      "(no callbacks, links plainly) or :cufft")

def cuda_header_excludes():
    """include/ patterns that belong to a library target, not to :cuda_headers.

    Returns:
      sorted list of glob patterns.
    """
    out = []
    for lib in CUDA_LIBRARIES:
        out += ["include/" + h for h in lib.headers] + ["include/%s/**" % d for d in lib.header_dirs]
    return sorted({p: None for p in out}.keys())
