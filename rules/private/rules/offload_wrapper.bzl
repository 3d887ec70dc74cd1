"""offload_wrapper: host registration code from `offload wrap`, as CcInfo."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:common.bzl", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:providers.bzl", "OffloadBundleInfo", "OffloadPackageInfo")
load("//rules/private:toolchain.bzl", "find_offload_tool")
load("//rules/private/actions:wrap.bzl", "emit_wrap")
load("//rules/private/kinds:registry.bzl", "KIND_NAMES")

def _input(ctx):
    src = ctx.attr.src
    if OffloadBundleInfo in src:
        return src[OffloadBundleInfo].bundle
    if OffloadPackageInfo in src:
        return src[OffloadPackageInfo].package
    files = src.files.to_list()
    if len(files) != 1:
        fail("%s: src %s must be one file, has %d" % (ctx.label, src.label, len(files)))
    return files[0]

def _offload_wrapper_impl(ctx):
    emit = ctx.attr.emit
    ext = {"c": ".c", "s": ".s", "obj": ".o"}[emit]
    generated = ctx.actions.declare_file("_offload/%s/%s.wrapper%s" % (ctx.label.name, ctx.label.name, ext))
    emit_wrap(ctx, find_offload_tool(ctx), ctx.attr.kind, [_input(ctx)], generated, emit, ctx.attr.entries, ctx.attr.triple)

    cc_toolchain = find_cc_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    if emit == "obj":
        compilation_context = cc_common.create_compilation_context()
        compilation_outputs = cc_common.create_compilation_outputs(
            objects = depset([generated]),
            pic_objects = depset([generated]),
        )
    else:
        compilation_context, compilation_outputs = cc_common.compile(
            name = ctx.label.name,
            actions = ctx.actions,
            feature_configuration = features,
            cc_toolchain = cc_toolchain,
            srcs = [generated],
        )

    # The registration runs from a constructor and nothing refers to it:
    # alwayslink keeps the linker from dropping it.
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        compilation_outputs = compilation_outputs,
        name = ctx.label.name,
        alwayslink = True,
        disallow_dynamic_library = True,
    )
    return [
        DefaultInfo(files = depset([generated])),
        CcInfo(compilation_context = compilation_context, linking_context = linking_context),
        OutputGroupInfo(wrapper = depset([generated])),
    ]

offload_wrapper = rule(
    implementation = _offload_wrapper_impl,
    doc = """Host code that registers device images with the offload runtime.

`offload wrap` writes what llvm-offload-wrapper makes as bitcode
(__tgt_register_lib for OpenMP, __hipRegisterFatBinary or
__cudaRegisterFatBinary for HIP and CUDA) as C source, assembly or an object
(see emit); C and assembly are compiled by the C++ toolchain. The result is
CcInfo with alwayslink, so cc_binary and cc_test link it directly.""",
    attrs = {
        "src": attr.label(
            doc = "What to register: an offload_bundle (HIP), an offload_package or device " +
                  "image (OpenMP), or a fat binary file (CUDA).",
            mandatory = True,
            allow_files = True,
        ),
        "kind": attr.string(
            doc = "Offload kind: \"hip\", \"cuda\" or \"openmp\".",
            mandatory = True,
            values = KIND_NAMES,
        ),
        "entries": attr.string(
            doc = "Offload entry layout of the runtime: \"llvm20\" (LLVM 20 and later) or \"legacy\" " +
                  "(LLVM 14-19, such as libomptarget 16). Empty: the tool's default.",
            values = ["", "llvm20", "legacy"],
        ),
        "triple": attr.string(doc = "Host triple; empty for the tool's default."),
        "emit": attr.string(
            doc = "What `offload wrap` writes: \"c\" (C source with the image bytes inline, compiled " +
                  "by the C++ toolchain: any host compiler), \"s\" (assembly, likewise) or \"obj\" " +
                  "(an ELF object for the host triple, no host compile).",
            default = "c",
            values = ["c", "s", "obj"],
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
