"""Targets checked against the SDKs of the clang toolchain, at analysis time.

LLVM's processor tables say what clang knows; the SDK says what can be built:
ROCm ships device libraries for some processors only, and ptxas builds a
range of sm_XX. A target outside them fails here, naming the SDK, its version
and what it supports, instead of deep inside a compile.
"""

def _has_any(flags, names):
    for f in flags:
        if f in names:
            return True
    return False

def _rocm_error(rocm, target, flags):
    if _has_any(flags, ["-nogpulib"]):
        return ""  # freestanding: no device libraries to find
    if rocm == None:
        return ""  # a toolchain without a declared ROCm: clang decides
    if not rocm.found:
        if _has_any(flags, ["-nogpuinc"]):
            return ""
        return ("HIP target %r needs ROCm (HIP headers and device libraries), and the clang toolchain's " +
                "ROCm has none: %s. Install it, point the repository at it, or compile freestanding " +
                "(copts = [\"-nogpuinc\", \"-nogpulib\"]).") % (target.name, rocm.error)
    if target.processor not in rocm.processors:
        return ("target %r: ROCm %s (%s) has no device libraries for %s; it has them for %s. Choose one " +
                "of those, use a ROCm that supports %s, or compile without device libraries " +
                "(copts = [\"-nogpulib\"]).") % (
            target.name,
            rocm.version,
            rocm.root,
            target.processor,
            ", ".join(rocm.processors),
            target.processor,
        )
    return ""

def _cuda_error(cuda, target, flags):
    if cuda == None:
        return ""
    if not cuda.found:
        if _has_any(flags, ["-nocudainc", "-nogpuinc"]):
            return ""
        return ("CUDA target %r needs a CUDA toolkit (headers, libdevice, ptxas), and the clang toolchain's " +
                "CUDA has none: %s. Install it, point the repository at it, or compile freestanding " +
                "(copts = [\"-nocudainc\", \"-nocudalib\"]).") % (target.name, cuda.error)
    arch = ("compute_" + target.processor[len("sm_"):]) if target.ptx else target.processor
    if cuda.archs and arch not in cuda.archs:
        return "target %r: CUDA %s (%s) cannot build %s; its ptxas supports %s." % (
            target.name,
            cuda.version,
            cuda.root,
            arch,
            ", ".join([a for a in cuda.archs if a.startswith(arch.partition("_")[0] + "_")]),
        )
    return ""

def sdk_error(clang, kind, targets, copts):
    """Why the toolchain's SDKs cannot build one of targets, or "".

    Args:
      clang: OffloadClangInfo.
      kind: "hip", "cuda" or "openmp".
      targets: resolved targets (targets.resolve_targets).
      copts: the rule's own flags (-nogpulib and friends opt out of the SDK).

    Returns:
      string: the first error, or "".
    """
    flags = clang.copts + clang.kind_copts.get(kind, []) + copts
    for t in targets:
        err = ""
        if kind == "hip" and t.triple.startswith("amdgcn"):
            err = _rocm_error(clang.rocm, t, flags)
        elif kind == "cuda" and t.triple.startswith("nvptx"):
            err = _cuda_error(clang.cuda, t, flags)
        if err:
            return err
    return ""
