"""The offload runtime a library links: libamdhip64, cudart, libomptarget."""

# nvcc links cudart_static with these by default; the static runtime calls
# dlopen, clock_gettime and pthreads.
_CUDART_STATIC_FLAGS = ["-ldl", "-lrt", "-lpthread"]

def _shared(files, basename):
    """The library to link: the link under the soname (libamdhip64.so.5) if there is one.

    A program records the soname and its loader looks for that file beside
    the program (Bazel's solib directory holds what was linked, under the
    same name); linking libamdhip64.so itself would leave the loader to
    find libamdhip64.so.5 on the machine instead.
    """
    versioned = [f for f in files if f.basename.startswith(basename + ".")]
    if versioned:
        return versioned[0]
    for f in files:
        if f.basename == basename:
            return f
    return files[0] if files else None

def runtime_library(clang, kind, runtime):
    """Which runtime library a library of this kind links, and how.

    Args:
      clang: OffloadClangInfo (its rocm and cuda installations).
      kind: "hip", "cuda" or "openmp".
      runtime: "" (the kind's default: HIP and OpenMP shared, CUDA static),
        "static", "shared" or "none".

    Returns:
      (struct(static: File or None, dynamic: list of File, flags) or None,
      error string).
    """
    if runtime == "none":
        return None, ""
    if kind == "openmp":
        return _openmp_runtime(clang, runtime)
    if kind == "hip":
        rocm = clang.rocm
        if runtime == "static":
            return None, "runtime = \"static\": ROCm's HIP runtime (libamdhip64) is a shared library only"
        if not rocm or not rocm.found or not rocm.runtime:
            return None, ("the HIP runtime (libamdhip64.so) is not in the clang toolchain's ROCm; " +
                          "install libamdhip64-dev, or set runtime = \"none\" and link it yourself")
        return struct(static = None, dynamic = [_shared(rocm.runtime, "libamdhip64.so")], flags = []), ""
    cuda = clang.cuda
    if not cuda or not cuda.found:
        return None, ("the clang toolchain has no CUDA installation, so no cudart to link; " +
                      "set runtime = \"none\" and link it yourself")
    if runtime == "shared":
        if not cuda.cudart_shared:
            return None, "runtime = \"shared\": the CUDA installation has no libcudart.so"
        return struct(static = None, dynamic = [_shared(cuda.cudart_shared, "libcudart.so")], flags = []), ""
    if not cuda.cudart_static:
        return None, "the CUDA installation has no libcudart_static.a; set runtime = \"shared\" or \"none\""
    return struct(static = cuda.cudart_static[0], dynamic = [], flags = _CUDART_STATIC_FLAGS), ""

def _openmp_runtime(clang, runtime):
    """libomp and libomptarget of the clang toolchain's LLVM.

    Device code, host code and runtime must come from one LLVM release: the
    runtime is the compiler's own. Its host-CPU plugin is not linked:
    libomptarget opens it by name at run time (LD_LIBRARY_PATH).
    """
    if runtime == "static":
        return None, "runtime = \"static\": LLVM's OpenMP offload runtime (libomptarget) is a shared library only"
    llvm = clang.llvm
    libs = llvm.openmp_runtime if llvm else []
    wanted = [f for f in libs if f.basename.startswith("libomp.so") or f.basename.startswith("libomptarget.so")]
    if len(wanted) != 2:
        return None, ("the clang toolchain's LLVM has no OpenMP offload runtime (libomp and libomptarget); " +
                      "install libomp-<version>-dev and use an offload_llvm_repository toolchain, or set " +
                      "runtime = \"none\" and link it yourself")
    return struct(static = None, dynamic = wanted, flags = []), ""
