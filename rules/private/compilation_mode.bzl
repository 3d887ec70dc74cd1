"""Device and host flags from Bazel's compilation mode (-c fastbuild|dbg|opt)."""

# What clang gets per mode, for device code as for the host half: a user's
# `clang -O2 -c a.hip` optimizes both, and `bazel build -c opt` should too.
# The rule's copts come after these, so copts = ["-O3"] still wins.
_MODE_COPTS = {
    "fastbuild": [],
    "dbg": ["-g"],
    "opt": ["-O2"],
}

def mode_copts(ctx):
    """The flags of the current compilation mode.

    Args:
      ctx: a rule context.

    Returns:
      list of string.
    """
    return list(_MODE_COPTS.get(ctx.var.get("COMPILATION_MODE", "fastbuild"), []))
