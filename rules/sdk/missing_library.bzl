"""offload_missing_library: an SDK library the installation lacks, as a target that says so.

The SDK repositories write one for each library they cannot find, so a
BUILD file that depends on @offload_cuda//:cublas always loads, and only the
targets that need the library fail, at analysis time, with the reason and
the fix.
"""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

def _offload_missing_library_impl(ctx):
    fail("%s: %s" % (ctx.label, ctx.attr.error))

offload_missing_library = rule(
    implementation = _offload_missing_library_impl,
    doc = "A library the SDK lacks: analysis fails with error.",
    attrs = {
        "error": attr.string(mandatory = True, doc = "Why the library is missing and what to do."),
    },
    provides = [CcInfo],
)
