"""The two toolchains: the offload tool and the device clang."""

load("//rules/private/kinds:registry.bzl", "KIND_NAMES")
load(":common.bzl", "CLANG_TOOLCHAIN_TYPE", "OFFLOAD_TOOLCHAIN_TYPE")
load(":providers.bzl", "OffloadClangInfo", "OffloadCudaInfo", "OffloadLlvmInfo", "OffloadRocmInfo", "OffloadToolInfo")

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

def _rocm_flags(rocm):
    """HIP flags for a ROCm installation: paths from its label, ABI from its device libraries."""
    flags = [
        # clang searches --rocm-path's include directory after the system's
        # (/usr/include): where the machine also has HIP there (Debian's
        # libamdhip64-dev), clang would read those headers, not the declared
        # ones. -isystem puts the declared ones first.
        "-isystem",
        rocm.root + "/include",
        "--rocm-path=" + rocm.root,
        "--hip-path=" + rocm.root,
        "--rocm-device-lib-path=" + rocm.root + "/amdgcn/bitcode",
    ]
    if rocm.code_object_version:
        # clang 22 defaults to code object version 6, whose device library
        # (oclc_abi_version_600.bc) ROCm before 6.3 lacks.
        flags.append("-mcode-object-version=%d" % rocm.code_object_version)
    return flags

def _cuda_flags(cuda):
    """CUDA flags for a CUDA installation (--ptxas-path goes to cubin compiles only)."""
    return [
        # As for ROCm: clang searches --cuda-path's include directory after
        # /usr/include, where Debian's nvidia-cuda-dev puts CUDA's headers.
        "-isystem",
        cuda.root + "/include",
        "--cuda-path=" + cuda.root,
        # clang warns about every CUDA release newer or older than it knows.
        "-Wno-unknown-cuda-version",
    ]

def _fp16_compat_flags(rocm, llvm, version):
    """Force-includes the ROCm repository's fp16 declarations where clang's HIP wrapper lacks them.

    ROCm 5's hip_fp16.h (which rocPRIM, rocRAND and hipRAND include) calls
    __llvm_amdgcn_rcp_f16, which it leaves to clang's wrapper to declare;
    LLVM 22's does not. The header is the repository's (declared, an input of
    every HIP compile); -DOFFLOAD_NO_HIP_FP16_COMPAT in copts turns it off.
    A clang given by label or path has no record: LLVM 16 and older declare it.
    """
    if not rocm.fp16_compat_header:
        return []
    if llvm:
        declares = llvm.hip_declares_rcp_f16
    else:
        major = version.split(".")[0]
        declares = not major.isdigit() or int(major) <= 16
    if declares:
        return []
    return ["-include", rocm.fp16_compat_header.path]

def _predefines_wavefront_size(llvm, version):
    """Whether clang predefines __AMDGCN_WAVEFRONT_SIZE, which LLVM 22 dropped."""
    if llvm:
        return llvm.predefines_wavefront_size
    major = version.split(".")[0]
    return major.isdigit() and int(major) < 22

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
    if llvm:
        executable = llvm.clang
        transitive.append(llvm.files)
        version = version or llvm.version

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
    rocm = ctx.attr.rocm[OffloadRocmInfo] if ctx.attr.rocm else None
    if rocm and rocm.found:
        kind_copts["hip"] = _rocm_flags(rocm) + _fp16_compat_flags(rocm, llvm, version) + kind_copts.get("hip", [])
        kind_files["hip"] = rocm.files
    cuda = ctx.attr.cuda[OffloadCudaInfo] if ctx.attr.cuda else None
    if cuda and cuda.found:
        kind_copts["cuda"] = _cuda_flags(cuda) + kind_copts.get("cuda", [])
        kind_files["cuda"] = depset([cuda.ptxas] if cuda.ptxas else [], transitive = [cuda.files])
        if cuda.ptxas:
            ptxas = cuda.ptxas.path
    info = OffloadClangInfo(
        executable = executable,
        path = ctx.attr.path,
        files = depset(files, transitive = transitive),
        version = version,
        copts = copts,
        kind_copts = kind_copts,
        link_flags = link_flags,
        ptxas = ptxas,
        kind_files = kind_files,
        rocm = rocm,
        cuda = cuda,
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
    attrs = {
        "llvm": attr.label(
            doc = "An LLVM installation (offload_llvm, e.g. @offload_llvm//:llvm). Exclusive with clang and path.",
            providers = [OffloadLlvmInfo],
            cfg = "exec",
        ),
        "rocm": attr.label(
            doc = "A ROCm installation (offload_rocm, e.g. @offload_rocm//:rocm) for HIP: headers, " +
                  "device libraries, the flags that point clang at them.",
            providers = [OffloadRocmInfo],
            cfg = "exec",
        ),
        "cuda": attr.label(
            doc = "A CUDA installation (offload_cuda, e.g. @offload_cuda//:cuda): headers, libdevice, " +
                  "ptxas for cubins.",
            providers = [OffloadCudaInfo],
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
