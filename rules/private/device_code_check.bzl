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

The libraries are found through deps and implementation_deps at any depth
(device_code_aspect): a HIP library that depends on a cc_library of the
project which links rocRAND runs rocRAND's kernels just the same.
"""

load(":providers.bzl", "OffloadDeviceCodeLibraryInfo")

_DeviceCodeLibrariesInfo = provider(
    doc = "The SDK libraries with device code that a target links, at any depth.",
    fields = {
        "libraries": "depset of struct(label, library, file, code_objects): OffloadDeviceCodeLibraryInfo with the label.",
    },
)

_DEP_ATTRS = ["deps", "implementation_deps"]

def _collect_impl(target, ctx):
    own = []
    if OffloadDeviceCodeLibraryInfo in target:
        info = target[OffloadDeviceCodeLibraryInfo]
        own.append(struct(
            label = str(target.label),
            library = info.library,
            file = info.file,
            code_objects = tuple(info.code_objects),
        ))
    transitive = [
        dep[_DeviceCodeLibrariesInfo].libraries
        for name in _DEP_ATTRS
        for dep in getattr(ctx.rule.attr, name, [])
        if _DeviceCodeLibrariesInfo in dep
    ]
    return [_DeviceCodeLibrariesInfo(libraries = depset(own, transitive = transitive))]

device_code_aspect = aspect(
    implementation = _collect_impl,
    attr_aspects = _DEP_ATTRS,
    doc = "Collects OffloadDeviceCodeLibraryInfo through deps and implementation_deps.",
)

def _libraries(dep):
    """The device-code libraries dep is or links, as structs."""
    if _DeviceCodeLibrariesInfo in dep:
        return dep[_DeviceCodeLibrariesInfo].libraries.to_list()
    if OffloadDeviceCodeLibraryInfo in dep:
        info = dep[OffloadDeviceCodeLibraryInfo]
        return [struct(label = str(dep.label), library = info.library, file = info.file, code_objects = info.code_objects)]
    return []

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
    """Why a library deps link has no device code for one of targets, or "".

    Args:
      deps: the rule's deps and implementation_deps (Targets), seen through device_code_aspect.
      targets: resolved targets (targets.resolve_targets).

    Returns:
      string.
    """
    for dep in deps:
        for lib in _libraries(dep):
            missing = [
                t.name
                for t in targets
                if not [c for c in lib.code_objects if _serves(c, t)]
            ]
            if not missing:
                continue
            via = "" if lib.label == str(dep.label) else " (linked through %s)" % dep.label
            return ("%s (%s)%s has no device code for %s: its code objects are for %s. Drop %s, or use an " +
                    "installation of %s built for %s") % (
                lib.label,
                lib.file,
                via,
                ", ".join(missing),
                ", ".join(lib.code_objects),
                "that target" if len(missing) == 1 else "those targets",
                lib.library,
                ", ".join(missing),
            )
    return ""
