"""Targets checked against the SDKs of the clang toolchain, at analysis time.

LLVM's processor tables say what clang knows; the SDK says what can be built:
ROCm ships device libraries for some processors only, and ptxas builds a
range of sm_XX. A target outside them fails here, naming the SDK, its version
and what it supports, instead of deep inside a compile. Each kind checks its
own SDK (kinds/*.bzl: sdk_error).
"""

def sdk_error(clang, kind, targets, copts):
    """Why the toolchain's SDKs cannot build one of targets, or "".

    Args:
      clang: OffloadClangInfo.
      kind: the offload kind's struct (kinds/registry.bzl).
      targets: resolved targets (targets.resolve_targets).
      copts: the rule's own flags (-nogpulib and friends opt out of the SDK).

    Returns:
      string: the first error, or "".
    """
    flags = clang.copts + clang.kind_copts.get(kind.name, []) + copts
    for t in targets:
        err = kind.sdk_error(clang, t, flags)
        if err:
            return err
    return ""
