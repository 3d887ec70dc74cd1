"""The two toolchains: the offload tool and the device clang."""

load("//rules/private/kinds:registry.bzl", "KIND_NAMES")
load("//rules/sdk:registry.bzl", "SDKS")
load(":common.bzl", "CLANG_TOOLCHAIN_TYPE", "OFFLOAD_TOOLCHAIN_TYPE")
load(":providers.bzl", "OffloadClangInfo", "OffloadLlvmInfo", "OffloadToolInfo")

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

# The SDKs of rules/sdk/registry.bzl that offload_clang_toolchain takes, one
# attribute each (rocm, cuda): rule attributes are fixed when the rule is
# defined, so they are made here from the registry.
_TOOLCHAIN_SDKS = [sdk for sdk in SDKS if sdk.toolchain]

_SDK_ATTRS = {
    sdk.name: attr.label(doc = sdk.toolchain.doc, providers = [sdk.toolchain.provider], cfg = "exec")
    for sdk in _TOOLCHAIN_SDKS
}

def _predefines_wavefront_size(llvm, version):
    """Whether clang predefines __AMDGCN_WAVEFRONT_SIZE, which LLVM 22 dropped."""
    if llvm:
        return llvm.predefines_wavefront_size
    major = version.split(".")[0]
    return major.isdigit() and int(major) < 22

# The first LLVM whose HIP wrapper no longer declares the device library
# functions the HIP headers call (__ocml_floor_f64, the _f16 ones, ...).
_HIP_WRAPPER_DECLS_FROM_MAJOR = 23

def _clang_major(llvm, version):
    if llvm:
        return llvm.major
    major = version.split(".")[0]
    return int(major) if major.isdigit() else 0

def _hip_wrapper_decls(ctx, llvm, version):
    """hip_wrapper_decls.h as copts and files, for clangs whose HIP wrapper lacks the declarations.

    A clang of unknown version (clang or path without version) gets
    nothing: the toolchain's version attribute says which it is.
    """
    if _clang_major(llvm, version) < _HIP_WRAPPER_DECLS_FROM_MAJOR:
        return [], []
    header = ctx.file._hip_wrapper_decls
    return ["-include", header.path], [header]

def _offload_clang_toolchain_impl(ctx):
    given = [n for n in ("clang", "path", "llvm") if getattr(ctx.attr, n)]
    if len(given) != 1:
        fail("offload_clang_toolchain %s: give exactly one of llvm (an offload_llvm), clang (a label) " % ctx.label +
             "and path (an absolute path)")
    if ctx.attr.path and not ctx.attr.path.startswith("/"):
        fail("offload_clang_toolchain %s: path %r must be absolute (actions run without PATH)" % (ctx.label, ctx.attr.path))
    for k in ctx.attr.kind_copts:
        if k not in KIND_NAMES:
            fail("offload_clang_toolchain %s: kind_copts key %r is not %s" % (ctx.label, k, ", ".join(KIND_NAMES[:-1]) + " or " + KIND_NAMES[-1]))
    files = ctx.files.data
    transitive = []
    executable = None
    version = ctx.attr.version
    copts = list(ctx.attr.copts)
    link_flags = list(ctx.attr.link_flags)
    llvm = ctx.attr.llvm[OffloadLlvmInfo] if ctx.attr.llvm else None
    env = {}
    if llvm:
        executable = llvm.clang
        transitive.append(llvm.files)
        version = version or llvm.version

        # clang, and the tools it runs, load the installation's libraries
        # from the declared files, not from the machine's library directory.
        if llvm.library_path:
            env["LD_LIBRARY_PATH"] = llvm.library_path

        # clang finds its resource directory and lld next to the path it was
        # run by (the repository's bin/), not next to the file it resolves to.
        copts = ["-no-canonical-prefixes"] + copts

        # Links use the installation's lld: actions have no PATH, and the
        # system's ld is not an input.
        link_flags = ["-no-canonical-prefixes"] + (["-fuse-ld=lld"] if llvm.lld else []) + link_flags
    elif ctx.attr.clang:
        executable = ctx.executable.clang
        files = files + [executable]
        transitive.append(ctx.attr.clang[DefaultInfo].default_runfiles.files)

    kind_copts = {k: list(v) for k, v in ctx.attr.kind_copts.items()}
    kind_files = {}
    ptxas = ctx.attr.ptxas
    sdks = {}
    for sdk in _TOOLCHAIN_SDKS:
        target = getattr(ctx.attr, sdk.name)
        info = target[sdk.toolchain.provider] if target else None
        sdks[sdk.name] = info
        if info and info.found:
            kind = sdk.toolchain.kind
            add = sdk.toolchain.contribution(info, llvm, version)
            kind_copts[kind] = add.copts + kind_copts.get(kind, [])
            kind_files[kind] = add.files
            if add.ptxas:
                ptxas = add.ptxas
    rocm = sdks.get("rocm")
    if rocm and rocm.found:
        decls, decl_files = _hip_wrapper_decls(ctx, llvm, version)
        if decls:
            kind = [sdk for sdk in _TOOLCHAIN_SDKS if sdk.name == "rocm"][0].toolchain.kind
            kind_copts[kind] = kind_copts.get(kind, []) + decls
            kind_files[kind] = depset(decl_files, transitive = [kind_files[kind]] if kind in kind_files else [])
    info = OffloadClangInfo(
        executable = executable,
        path = ctx.attr.path,
        files = depset(files, transitive = transitive),
        env = env,
        version = version,
        copts = copts,
        kind_copts = kind_copts,
        link_flags = link_flags,
        ptxas = ptxas,
        kind_files = kind_files,
        sdks = sdks,
        rocm = rocm,
        cuda = sdks.get("cuda"),
        llvm = llvm,
        host_triple = (llvm.target_triple if llvm else "") or ctx.attr.host_triple,
        hip_wavefront_define = bool(rocm and rocm.found and rocm.wavefront_macro and
                                    not _predefines_wavefront_size(llvm, version)),
    )
    return [info, platform_common.ToolchainInfo(clang = info)]

offload_clang_toolchain = rule(
    implementation = _offload_clang_toolchain_impl,
    doc = """A clang that compiles device code, for the clang toolchain type or a rule's compiler attribute.

Hermetic: llvm = an offload_llvm (offload_llvm_repository's //:llvm), with
rocm = an offload_rocm and cuda = an offload_cuda. Every file clang and the
SDKs read is then an action input and every SDK path on the command line
comes from a label (--rocm-path, --rocm-device-lib-path, --cuda-path,
--ptxas-path); -mcode-object-version follows the ROCm device libraries.
rules_offload_toolchains() (WORKSPACE) and the `offload` module extension
(MODULE.bazel) register one.

Also accepted, not hermetic: clang as a label (a single file), or an absolute
path (the machine's clang; the compiler's files are not action inputs, so
keep it the same on every machine that shares a cache).""",
    attrs = dict({
        "llvm": attr.label(
            doc = "An LLVM installation (offload_llvm, e.g. @offload_llvm//:llvm). Exclusive with clang and path.",
            providers = [OffloadLlvmInfo],
            cfg = "exec",
        ),
        "clang": attr.label(
            doc = "clang as a label (an executable file or binary target). Exclusive with llvm and path.",
            executable = True,
            allow_files = True,
            cfg = "exec",
        ),
        "path": attr.string(
            doc = "clang's absolute path. Exclusive with llvm and clang.",
        ),
        "data": attr.label_list(
            doc = "Files clang reads (resource directory, device libraries), made action inputs.",
            allow_files = True,
            cfg = "exec",
        ),
        "version": attr.string(
            doc = "clang's version, carried in OffloadClangInfo (default: the llvm installation's).",
        ),
        "host_triple": attr.string(
            doc = "The host triple this clang's driver uses (`clang -print-target-triple`, e.g. " +
                  "x86_64-pc-linux-gnu on Debian); default: the llvm installation's. Bundled host " +
                  "objects carry it, since clang unbundles them by it.",
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
        "_hip_wrapper_decls": attr.label(
            default = Label("//rules/private:hip_wrapper_decls.h"),
            allow_single_file = True,
        ),
        "ptxas": attr.string(
            doc = "Absolute path of ptxas. Without it, CUDA cubin targets (sm_XX in offload_package " +
                  "with an object type) fail at analysis; PTX targets (compute_XX) need none.",
        ),
    }, **_SDK_ATTRS),
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
