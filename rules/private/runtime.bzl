"""The offload runtime a HIP or CUDA library links: libamdhip64, cudart."""

# nvcc links cudart_static with these by default; the static runtime calls
# dlopen, clock_gettime and pthreads.
_CUDART_STATIC_FLAGS = ["-ldl", "-lrt", "-lpthread"]

def _named(files, basename):
    for f in files:
        if f.basename == basename:
            return f
    return files[0] if files else None

def runtime_library(clang, kind, runtime):
    """Which runtime library a library of this kind links, and how.

    Args:
      clang: OffloadClangInfo (its rocm and cuda installations).
      kind: "hip" or "cuda".
      runtime: "" (the kind's default: HIP shared, CUDA static), "static",
        "shared" or "none".

    Returns:
      (struct(static, dynamic, flags) or None, error string).
    """
    if runtime == "none":
        return None, ""
    if kind == "hip":
        rocm = clang.rocm
        if runtime == "static":
            return None, "runtime = \"static\": ROCm's HIP runtime (libamdhip64) is a shared library only"
        if not rocm or not rocm.found or not rocm.runtime:
            return None, ("the HIP runtime (libamdhip64.so) is not in the clang toolchain's ROCm; " +
                          "install libamdhip64-dev, or set runtime = \"none\" and link it yourself")
        return struct(static = None, dynamic = _named(rocm.runtime, "libamdhip64.so"), flags = []), ""
    cuda = clang.cuda
    if not cuda or not cuda.found:
        return None, ("the clang toolchain has no CUDA installation, so no cudart to link; " +
                      "set runtime = \"none\" and link it yourself")
    if runtime == "shared":
        if not cuda.cudart_shared:
            return None, "runtime = \"shared\": the CUDA installation has no libcudart.so"
        return struct(static = None, dynamic = _named(cuda.cudart_shared, "libcudart.so"), flags = []), ""
    if not cuda.cudart_static:
        return None, "the CUDA installation has no libcudart_static.a; set runtime = \"shared\" or \"none\""
    return struct(static = cuda.cudart_static[0], dynamic = None, flags = _CUDART_STATIC_FLAGS), ""
