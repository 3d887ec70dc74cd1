"""Targets checked against the device code of the SDK libraries a rule depends on.

A HIP program that calls rocRAND's host API runs rocRAND's own kernels, from
the code objects inside librocrand.so: on a processor the library has none
for, every such call fails at run time (hipErrorNoBinaryForGpu). The ROCm
repository records each such library's code objects
(OffloadDeviceCodeLibraryInfo); a target no code object serves fails here.

A code object serves a target when the processor is the same and no feature
contradicts one the target sets: gfx906:xnack- serves gfx906:xnack- and
gfx906 (the runtime picks it on a device running with XNACK off), not
gfx906:xnack+.
"""

load(":providers.bzl", "OffloadDeviceCodeLibraryInfo")

def _split(target_id):
    parts = target_id.split(":")
    return parts[0], parts[1:]

def _opposite(feature):
    return feature[:-1] + ("-" if feature.endswith("+") else "+")

def _serves(code_object, target):
    processor, features = _split(code_object)
    if processor != target.processor:
        return False
    for f in target.features:
        if _opposite(f) in features:
            return False
    return True

def device_code_error(deps, targets):
    """Why a library among deps has no device code for one of targets, or "".

    Args:
      deps: the rule's deps (Targets); those without OffloadDeviceCodeLibraryInfo are skipped.
      targets: resolved targets (targets.resolve_targets).

    Returns:
      string.
    """
    for dep in deps:
        if OffloadDeviceCodeLibraryInfo not in dep:
            continue
        info = dep[OffloadDeviceCodeLibraryInfo]
        missing = [
            t.name
            for t in targets
            if not [c for c in info.code_objects if _serves(c, t)]
        ]
        if missing:
            return ("%s (%s) has no device code for %s: its code objects are for %s. Drop %s, or use an " +
                    "installation of %s built for %s") % (
                dep.label,
                info.file,
                ", ".join(missing),
                ", ".join(info.code_objects),
                "that target" if len(missing) == 1 else "those targets",
                info.library,
                ", ".join(missing),
            )
    return ""
