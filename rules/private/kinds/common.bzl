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

def no_error(*_args):
    return ""

def add_nothing(*_args):
    pass

def no_wavefront(_target):
    return 0

def current_entry_layout(_version):
    """The offload entries of LLVM 20 and later (llvm_offload_entries)."""
    return ""
