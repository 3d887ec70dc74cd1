"""Targets checked against the SDKs of the clang toolchain, at analysis time.

LLVM's processor tables say what clang knows (names LLVM 23 added need a
clang 23); the SDK says what can be built:
ROCm ships device libraries for some processors only, and ptxas builds a
range of sm_XX. A target outside them fails here, naming the SDK, its version
and what it supports, instead of deep inside a compile. Each kind checks its
own SDK (kinds/*.bzl: sdk_error).
"""

load("//rules/private/targets:targets.bzl", "llvm_since")

def _clang_major(clang):
    """The toolchain clang's major version, or 0 when it does not say."""
    if clang.llvm:
        return clang.llvm.major
    v = clang.version.split(".")[0]
    return int(v) if v.isdigit() else 0

def clang_error(clang, targets):
    """A target the toolchain's clang is too old to know (sm_100f before LLVM 23), or "".

    Args:
      clang: OffloadClangInfo.
      targets: resolved targets.

    Returns:
      string.
    """
    major = _clang_major(clang)
    for t in targets:
        need = llvm_since(t.processor)
        if major and need > major:
            return ("target %r: clang %d does not know %s (LLVM %d added it); use a clang %d or later " +
                    "(offload.llvm(version = \"%d\"), or offload_llvm_repository(version = \"%d\"))") % (
                t.name,
                major,
                t.processor,
                need,
                need,
                need,
                need,
            )
    return ""

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
    err = clang_error(clang, targets)
    if err:
        return err
    flags = clang.copts + clang.kind_copts.get(kind.name, []) + copts
    for t in targets:
        err = kind.compile.sdk_error(clang, t, flags)
        if err:
            return err
    return ""
