"""Tests of offload_registration_test: it passes on real programs and fails on ones broken on purpose."""

load("@rules_offload//rules:defs.bzl", "cuda_library", "hip_library", "offload_registration_test")
load("@rules_shell//shell:sh_test.bzl", "sh_test")

CUDA = "@rules_offload_examples//cuda"
HIP = "@rules_offload_examples//hip"
FLEET = ["sm_70", "sm_90", "compute_90"]

def _expect(name, status, messages, **kwargs):
    """An offload_registration_test, and the sh_test that checks its exit status and report."""
    offload_registration_test(name = name + "_check", tags = ["manual"], **kwargs)
    sh_test(
        name = name,
        size = "small",
        srcs = ["registration/expect.sh"],
        args = [str(status), "$(rootpath :%s_check)" % name] + messages,
        data = [":%s_check" % name],
    )

def registration_tests():
    """The registration tests of //integration."""

    # The Thrust program of tests/gpu (29 Thrust and CUB kernels), built by
    # these rules: every kernel registered is in every image. Built by the
    # rules of 61540b7, before __CUDA_ARCH_LIST__ was the library's in every
    # device compile, it fails (lib/regcheck's TestThrustUnfixed).
    offload_registration_test(
        name = "thrust_registration_test",
        size = "small",
        binary = "@rules_offload_gpu//:thrust_sort_reduce",
    )

    # A target missing from the fat binary: the test declares sm_80, which
    # the library does not build.
    _expect(
        name = "missing_target_registration_test",
        status = 1,
        binary = CUDA + ":vector_add_main",
        targets = ["sm_70", "sm_80", "sm_90", "compute_90"],
        messages = ["missing: sm_80"],
    )

    # The same for HIP: the fat binary holds gfx1030, which is not declared.
    _expect(
        name = "extra_target_registration_test",
        status = 1,
        binary = HIP + ":vector_add_main",
        targets = ["gfx906", "gfx90a:xnack+"],
        messages = ["not declared: gfx1030"],
    )

    # A kernel renamed in the sm_90 and compute_90 images.
    cuda_library(
        name = "renamed_kernel",
        srcs = ["registration/renamed_kernel.cu"],
        targets = FLEET,
    )
    _expect(
        name = "renamed_kernel_registration_test",
        status = 1,
        deps = [":renamed_kernel"],
        messages = [
            "kernel Scale is registered by the host half but is not in the sm_90 cubin, compute_90 PTX",
            "the sm_90 compile named it ScaleSm90",
            "kernel ScaleSm90 of the sm_90 cubin, compute_90 PTX (cuda fat binary #0) is not registered",
        ],
    )

    # A registration call missing: examples/hip's scale_registration
    # registers the scale bundle's fat binary (offload_wrapper, host code
    # without -fgpu-rdc: no kernel entries), and a library of the same
    # source gives the program a launch stub for its kernel, which nothing
    # registers for that fat binary.
    hip_library(
        name = "scale_lib",
        srcs = [HIP + ":scale.hip"],
        targets = ["gfx906", "gfx90a:xnack+", "gfx1030"],
    )
    _expect(
        name = "registration_call_missing_registration_test",
        status = 1,
        deps = [
            HIP + ":scale_registration",
            ":scale_lib",
        ],
        messages = ["(hip fat binary #0) is registered by no host code: the host program has a launch stub for it, but no registration call names it"],
    )

    # A kernel that only device code can launch: not registered, and the
    # report says why.
    cuda_library(
        name = "device_only_kernel",
        srcs = ["registration/device_only_kernel.cu"],
        targets = FLEET,
    )
    _expect(
        name = "device_only_kernel_registration_test",
        status = 0,
        deps = [":device_only_kernel"],
        messages = ["kernel DeviceOnly of the sm_70 cubin, sm_90 cubin, compute_90 PTX (cuda fat binary #0) is not registered: no host code refers to it"],
    )
