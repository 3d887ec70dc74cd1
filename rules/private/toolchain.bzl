"""The two toolchains: the offload tool and the device clang."""

load(":common.bzl", "CLANG_TOOLCHAIN_TYPE", "OFFLOAD_TOOLCHAIN_TYPE")
load(":providers.bzl", "OffloadClangInfo", "OffloadToolInfo")

def _offload_toolchain_impl(ctx):
    tool = OffloadToolInfo(
        executable = ctx.executable.tool,
        files_to_run = ctx.attr.tool[DefaultInfo].files_to_run,
    )
    return [platform_common.ToolchainInfo(offload = tool)]

offload_toolchain = rule(
    implementation = _offload_toolchain_impl,
    doc = """The offload tool for the rules, registered with toolchain():

    offload_toolchain(name = "offload_prebuilt", tool = "@offload_bin//:offload")
    toolchain(
        name = "offload_prebuilt_toolchain",
        toolchain = ":offload_prebuilt",
        toolchain_type = "@rules_offload//rules:toolchain_type",
    )

The default toolchain (//rules/toolchains:offload) builds //tool/offload
from source with rules_go; a prebuilt binary needs no Go toolchain.""",
    attrs = {
        "tool": attr.label(
            doc = "The offload binary: a go_binary, or a prebuilt executable file.",
            mandatory = True,
            executable = True,
            allow_files = True,
            cfg = "exec",
        ),
    },
)

def _offload_clang_toolchain_impl(ctx):
    if bool(ctx.attr.clang) == bool(ctx.attr.path):
        fail("offload_clang_toolchain %s: give exactly one of clang (a label) and path (an absolute path)" % ctx.label)
    if ctx.attr.path and not ctx.attr.path.startswith("/"):
        fail("offload_clang_toolchain %s: path %r must be absolute (actions run without PATH)" % (ctx.label, ctx.attr.path))
    for k in ctx.attr.kind_copts:
        if k not in ("hip", "cuda", "openmp"):
            fail("offload_clang_toolchain %s: kind_copts key %r is not hip, cuda or openmp" % (ctx.label, k))
    files = ctx.files.data
    executable = None
    if ctx.attr.clang:
        executable = ctx.executable.clang
        files = files + [executable]
    info = OffloadClangInfo(
        executable = executable,
        path = ctx.attr.path,
        files = depset(files, transitive = [ctx.attr.clang[DefaultInfo].default_runfiles.files] if ctx.attr.clang else []),
        version = ctx.attr.version,
        copts = ctx.attr.copts,
        kind_copts = {k: v for k, v in ctx.attr.kind_copts.items()},
        link_flags = ctx.attr.link_flags,
        ptxas = ctx.attr.ptxas,
    )
    return [info, platform_common.ToolchainInfo(clang = info)]

offload_clang_toolchain = rule(
    implementation = _offload_clang_toolchain_impl,
    doc = """A clang that compiles device code, for the clang toolchain type or a rule's compiler attribute.

Give clang as a label (a hermetic LLVM distribution: best for shared caches)
or as an absolute path (the machine's clang, e.g. /usr/bin/clang-22; the
path and the compiler's version become part of every cache key only through
the command line, so keep them the same on every machine that shares a
cache).""",
    attrs = {
        "clang": attr.label(
            doc = "clang as a label (an executable file or binary target). Exclusive with path.",
            executable = True,
            allow_files = True,
            cfg = "exec",
        ),
        "path": attr.string(
            doc = "clang's absolute path. Exclusive with clang.",
        ),
        "data": attr.label_list(
            doc = "Files clang reads (resource directory, device libraries), made action inputs.",
            allow_files = True,
            cfg = "exec",
        ),
        "version": attr.string(
            doc = "Informational clang version, carried in OffloadClangInfo.",
        ),
        "copts": attr.string_list(
            doc = "Flags for every device compile, before the rule's copts.",
        ),
        "kind_copts": attr.string_list_dict(
            doc = "Extra flags per offload kind: {\"hip\": [\"-nogpuinc\", \"-nogpulib\"], " +
                  "\"cuda\": [\"-nocudainc\", \"-nocudalib\", \"--cuda-feature=+ptx78\"]}.",
        ),
        "link_flags": attr.string_list(
            doc = "Extra flags for device links (several HIP sources linked per target).",
        ),
        "ptxas": attr.string(
            doc = "Absolute path of ptxas. Without it, CUDA cubin targets (sm_XX in offload_package " +
                  "with an object type) fail at analysis; PTX targets (compute_XX) need none.",
        ),
    },
)

def find_offload_tool(ctx):
    """The offload tool of the resolved offload toolchain.

    Args:
      ctx: a rule context whose rule lists OFFLOAD_TOOLCHAIN_TYPE in toolchains.

    Returns:
      OffloadToolInfo.
    """
    return ctx.toolchains[OFFLOAD_TOOLCHAIN_TYPE].offload

def find_clang(ctx):
    """The device clang: the rule's compiler attribute, else the clang toolchain.

    Args:
      ctx: a rule context with an optional compiler attribute and
        CLANG_TOOLCHAIN_TYPE in its toolchains.

    Returns:
      OffloadClangInfo.
    """
    if getattr(ctx.attr, "compiler", None):
        return ctx.attr.compiler[OffloadClangInfo]
    return ctx.toolchains[CLANG_TOOLCHAIN_TYPE].clang
