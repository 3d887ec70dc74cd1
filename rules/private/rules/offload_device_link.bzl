"""offload_device_link: the device link of a program's relocatable device code."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:cc.bzl", "cc_setup", "library_linking_context", "merge", "outputs_linking_context")
load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:compilation_mode.bzl", "mode_copts")
load("//rules/private:providers.bzl", "OffloadClangInfo", "OffloadImageInfo", "OffloadRdcInfo")
load("//rules/private:toolchain.bzl", "find_clang", "find_offload_tool")
load("//rules/private/actions:containers.bzl", "CONTAINERS")
load("//rules/private/actions:device_link.bzl", "emit_device_link")
load("//rules/private/actions:wrap.bzl", "emit_wrap")
load("//rules/private/kinds:registry.bzl", "KINDS")
load("//rules/private/targets:targets.bzl", "resolve_targets")

def _rdc_info(ctx):
    """The one OffloadRdcInfo all deps agree on."""
    infos = [d[OffloadRdcInfo] for d in ctx.attr.deps if OffloadRdcInfo in d]
    if not infos:
        fail("%s: no dep has relocatable device code (offload_library with rdc = True, or kind \"openmp\")" % ctx.label)
    first = infos[0]
    for i in infos[1:]:
        if i.kind != first.kind or i.targets != first.targets:
            fail("%s: deps disagree: %s for %s and %s for %s; one device link needs one kind and one target list" % (
                ctx.label,
                first.kind,
                ", ".join(first.targets),
                i.kind,
                ", ".join(i.targets),
            ))
    objects = {t: depset(transitive = [i.objects[t] for i in infos], order = "topological") for t in first.targets}
    return KINDS[first.kind], first.targets, objects

def _image(file, target, kind):
    return OffloadImageInfo(
        file = file,
        target = target.name,
        target_id = target.target_id,
        processor = target.processor,
        triple = target.triple,
        bundle_id = target.bundle_id,
        image_kind = kind.link.image_kind,
        offload_kind = kind.name,
        producer = "link",
    )

def _container(ctx, tool, kind, images, prefix):
    """The linked images in what the runtime loads: a HIP or NVIDIA fat binary, an OffloadBinary."""
    container = CONTAINERS[kind.link.container]
    out = ctx.actions.declare_file(prefix + ctx.label.name + container.ext)
    return container.emit(ctx, tool, images, out)

def _offload_device_link_impl(ctx):
    kind, names, objects = _rdc_info(ctx)
    clang = find_clang(ctx)

    # The new driver's fat binary entries are "hip-", not "hipv4-".
    targets, err = resolve_targets(names, kind.name, False)
    if err:
        fail("%s: %s" % (ctx.label, err))
    prefix = "_offload/%s/" % ctx.label.name
    images = []
    for t in targets:
        out = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, ctx.label.name, kind.link.image_ext))
        emit_device_link(ctx, clang, t, objects[t.name], out, rdc = True, mode_flags = mode_copts(ctx), kind = kind)
        images.append(_image(out, t, kind))

    tool = find_offload_tool(ctx)
    fatbin = _container(ctx, tool, kind, images, prefix)

    # Registration: the container and every offload entry of the program's
    # host objects, as clang-linker-wrapper writes it.
    wrapper = ctx.actions.declare_file(prefix + ctx.label.name + ".wrapper.c")
    emit_wrap(ctx, tool, kind.name, [fatbin], wrapper, entries = kind.link.entry_layout(clang.version), flags = kind.link.wrap_flags(clang.version))
    cc = cc_setup(ctx)
    compilation_context, outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = cc.features,
        cc_toolchain = cc.toolchain,
        srcs = [wrapper],
    )
    registration = outputs_linking_context(ctx, cc, outputs, True)

    # The registration finds the host objects' offload entries between
    # __start_ and __stop_ of their section, which nothing else refers to:
    # lld (13 and later) collects such sections under --gc-sections (-c opt)
    # and then fails on the undefined __start_ symbol. clang's own -fgpu-rdc
    # link fails the same way. gold rejects -z nostart-stop-gc, so section
    # garbage collection is turned off for the program (every linker takes
    # the last of --gc-sections and --no-gc-sections).
    keep_entries = library_linking_context(ctx, cc, link_flags = ["-Wl,--no-gc-sections"])
    cc_info = merge(compilation_context, [registration, keep_entries], [d[CcInfo] for d in ctx.attr.deps])
    return [
        DefaultInfo(files = depset([fatbin])),
        cc_info,
        OutputGroupInfo(device_images = depset([i.file for i in images]), container = depset([fatbin])),
    ]

offload_device_link = rule(
    implementation = _offload_device_link_impl,
    doc = """The device link of a program: relocatable device code of every library, linked once.

deps are offload_library(rdc = True) targets, or OpenMP libraries (with
their deps, transitively) of one kind and one target list. Per target one
OffloadDeviceLink (AMDGPU: full LTO by lld into a code object; NVIDIA: nvlink
of the relocatable cubins, through clang as clang-linker-wrapper runs it;
OpenMP host-CPU devices: a shared object), then the HIP fat binary (offload
bundler), NVIDIA fat binary (`offload fatbin`) or OffloadBinary (OpenMP), and
registration code from `offload wrap` that registers it with every kernel
and variable of the program's host objects. One per program: the
registration spans all of the program's offload entries. Returns the deps' CcInfo plus the registration
(alwayslink): cc_binary(deps = [":device_link"]) links the program. Compile
-c opt: the device link optimizes at -O2 like the compiles.""",
    attrs = {
        "deps": attr.label_list(
            doc = "offload_library(rdc = True) and OpenMP offload_library targets; their CcInfo is passed on.",
            providers = [CcInfo],
            mandatory = True,
        ),
        "compiler": attr.label(
            doc = "An offload_clang_toolchain to link with instead of the clang toolchain.",
            providers = [OffloadClangInfo],
            cfg = "exec",
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE), str(CLANG_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
