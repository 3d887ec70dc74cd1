"""Helpers the kind files share; pure functions."""

def has_any(flags, names):
    """Whether one of names is among flags.

    Args:
      flags: list of string.
      names: list of string.

    Returns:
      bool.
    """
    for f in flags:
        if f in names:
            return True
    return False

def offload_archs(targets):
    """--offload-arch values for a host compile, as the single-command build passes them.

    Args:
      targets: resolved targets.

    Returns:
      list of string, without duplicates (sm_90 and compute_90 give one).
    """
    archs = []
    for t in targets:
        arch = t.target_id or t.processor
        if arch and arch not in archs:
            archs.append(arch)
    return archs

def cuid_host_flags(language_flags, targets, cuid):
    """The host half of a HIP or CUDA compile: the targets, host only, the device compiles' cuid."""
    return language_flags + ["--offload-arch=" + a for a in offload_archs(targets)] + ["--offload-host-only", "-c", "-cuid=" + cuid]

# The first LLVM whose clang uses the new offload driver for CUDA, HIP and
# OpenMP alike without being asked (CUDA from 21, HIP from 23, OpenMP
# always); LLVM main has removed the old one (docs/compatibility.md).
NEW_DRIVER_DEFAULT_MAJOR = 23

def clang_major(clang):
    """clang's major version, or 0 when the toolchain does not say.

    Args:
      clang: OffloadClangInfo.

    Returns:
      int.
    """
    if clang.llvm:
        return clang.llvm.major
    major = (clang.version or "").split(".")[0]
    return int(major) if major.isdigit() else 0

def new_driver_flags(clang):
    """--offload-new-driver where clang would otherwise use its old driver for relocatable code.

    LLVM 23 and later use the new driver by default and LLVM main has no
    other, so the flag is left out there: the rules do not depend on LLVM
    keeping the option once the choice it made is gone. A clang of unknown
    version gets it, which every clang from 15 to 23 accepts.

    Args:
      clang: OffloadClangInfo.

    Returns:
      list of string.
    """
    major = clang_major(clang)
    if major and major >= NEW_DRIVER_DEFAULT_MAJOR:
        return []
    return ["--offload-new-driver"]

def no_error(*_args):
    return ""

def add_nothing(*_args):
    pass

def no_wavefront(*_args):
    return 0

def no_target_list_flags(_targets):
    return []

def no_device_link(_clang, _target):
    """The family's device link (families.bzl), nothing of the kind's own."""
    return None

def no_whole_program_link(_clang, _targets):
    """Whole-program images are compiled per target, not linked."""
    return None

def no_wrap_flags(_version):
    return []

def current_entry_layout(_version):
    """The offload entries of LLVM 20 and later (llvm_offload_entries)."""
    return ""

def shared_library(files, basename):
    """The library to link: the link under the soname (libamdhip64.so.5) if there is one.

    A program records the soname and its loader looks for that file beside
    the program (Bazel's solib directory holds what was linked, under the
    same name); linking libamdhip64.so itself would leave the loader to
    find libamdhip64.so.5 on the machine instead.

    Args:
      files: list of File: the library under its names.
      basename: the unversioned name, "libamdhip64.so".

    Returns:
      File or None.
    """
    versioned = [f for f in files if f.basename.startswith(basename + ".")]
    if versioned:
        return versioned[0]
    for f in files:
        if f.basename == basename:
            return f
    return files[0] if files else None
