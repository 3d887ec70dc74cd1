"""targets = "native": the build machine's GPUs, found when @offload_native was fetched.

As CMake's CMAKE_CUDA_ARCHITECTURES=native and clang's --offload-arch=native,
but once per output base (rules/sdk/native.bzl) rather than at every
compile, so that the targets are part of analysis (action keys, output
paths) like any other.
"""

OffloadNativeTargetsInfo = provider(
    doc = "The processors of the build machine's GPUs, per device family.",
    fields = {
        "families": "dict: device family name (\"amdgcn\", \"nvptx\") -> list of processors",
        "errors": "dict: device family name -> why its tool found none",
    },
)

def _offload_native_targets_impl(ctx):
    return [OffloadNativeTargetsInfo(families = ctx.attr.families, errors = ctx.attr.errors)]

offload_native_targets = rule(
    implementation = _offload_native_targets_impl,
    doc = "What offload_native_repository found (written into its BUILD file).",
    attrs = {
        "families": attr.string_list_dict(),
        "errors": attr.string_dict(),
    },
)

NATIVE = "native"

def expand_native(label, specs, kind, native):
    """Replaces "native" in specs by the machine's GPUs of the kind's device families.

    Args:
      label: the rule's label (for errors).
      specs: list of string, targets as written.
      kind: the offload kind's struct (its families).
      native: OffloadNativeTargetsInfo.

    Returns:
      list of string; fails when "native" finds no GPU for the kind.
    """
    if NATIVE not in specs:
        return specs
    found = []
    why = []
    for family in kind.families:
        found += native.families.get(family, [])
        if family in native.errors:
            why.append(native.errors[family])
    if not found:
        fail(("%s: targets \"native\": no %s GPU on this machine when @offload_native was fetched (%s); " +
              "name the targets, or after installing a GPU or its driver run `bazel sync --configure`") % (
            label,
            kind.name.upper(),
            "; ".join(why) or "no tool for the device families " + ", ".join(kind.families),
        ))
    out = []
    for s in specs:
        for t in (found if s == NATIVE else [s]):
            if t not in out:
                out.append(t)
    return out
