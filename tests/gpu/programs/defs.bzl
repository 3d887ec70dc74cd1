"""gpu_test_program: one GPU test program, a cuda_library and its main."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("@rules_offload//rules:defs.bzl", "cuda_library")

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
