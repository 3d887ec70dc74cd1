"""gpu_test_program: one GPU test program, a cuda_library and its main; openmp_test_program: the same for OpenMP."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("@rules_offload//rules:defs.bzl", "cuda_library", "offload_device_link", "openmp_library")

# What a user builds for a data-centre fleet: two real architectures and
# PTX for the newest, so the library's CUDA device compiles differ in
# __CUDA_ARCH__ and share __CUDA_ARCH_LIST__.
FLEET_TARGETS = ["sm_70", "sm_90", "compute_90"]

def gpu_test_program(name, src, targets = FLEET_TARGETS, **kwargs):
    """A cuda_library of src (defining RunGpuTest) and cc_binary name linking it with gpu_main.cc.

    Args:
      name: the program's name.
      src: the .cu file.
      targets: the library's offload targets.
      **kwargs: more cuda_library attributes.
    """
    cuda_library(
        name = name + "_lib",
        srcs = [src],
        hdrs = ["cuda_check.h", "gpu_test.h"],
        targets = targets,
        **kwargs
    )
    cc_binary(
        name = name,
        srcs = ["gpu_main.cc", "gpu_test.h"],
        deps = [":" + name + "_lib"],
    )

# clang-16 with CUDA and ROCm: LLVM 16 ships the OpenMP device runtime.
OPENMP_CLANG = "@rules_offload_examples//openmp:clang16"

def openmp_test_program(name, src, targets, **kwargs):
    """An openmp_library of src (defining RunGpuTest), its device link and cc_binary name with gpu_main.cc.

    The program loads libomp, libomptarget and its CUDA plugin of LLVM 16
    at run time (tests/gpu/build.sh packs them).

    Args:
      name: the program's name.
      src: the C++ source with the target regions.
      targets: the library's offload targets.
      **kwargs: more openmp_library attributes.
    """
    openmp_library(
        name = name + "_lib",
        srcs = [src],
        hdrs = ["gpu_test.h"],
        compiler = OPENMP_CLANG,
        targets = targets,
        **kwargs
    )
    offload_device_link(
        name = name + "_device_link",
        compiler = OPENMP_CLANG,
        deps = [":" + name + "_lib"],
    )
    cc_binary(
        name = name,
        srcs = ["gpu_main.cc", "gpu_test.h"],
        deps = [":" + name + "_device_link"],
    )
