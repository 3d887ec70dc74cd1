"""offload_device_code_library: an SDK library with device code inside, and what that code covers.

ROCm's rocRAND and rocSPARSE carry code objects for a fixed list of
processors in their shared objects (a .hip_fatbin section). The ROCm
repository reads the list with `offload inspect` when it is made and writes
one of these over the library's cc_library; a HIP target that depends on it
then fails at analysis time when it asks for a processor the library has no
code for (rules/private/device_code_check.bzl).
"""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:providers.bzl", "OffloadDeviceCodeLibraryInfo")

def _offload_device_code_library_impl(ctx):
    lib = ctx.attr.library
    return [
        lib[DefaultInfo],
        lib[CcInfo],
        OffloadDeviceCodeLibraryInfo(
            library = ctx.label.name,
            file = ctx.attr.file,
            code_objects = ctx.attr.code_objects,
        ),
    ]

offload_device_code_library = rule(
    implementation = _offload_device_code_library_impl,
    doc = "A cc_library whose shared object holds code objects for code_objects (target IDs).",
    attrs = {
        "library": attr.label(mandatory = True, providers = [CcInfo], doc = "The library's cc_library."),
        "file": attr.string(doc = "The shared object the code objects were read from (for messages)."),
        "code_objects": attr.string_list(doc = "Target IDs of its code objects (\"gfx906:xnack-\")."),
    },
    provides = [CcInfo, OffloadDeviceCodeLibraryInfo],
)
