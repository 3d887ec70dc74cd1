"""device_archive: heterogeneous device archives and their per-target device archives."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:common.bzl", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:providers.bzl", "OffloadBundleInfo", "OffloadDeviceArchiveInfo")
load("//rules/private:toolchain.bzl", "find_offload_tool")
load("//rules/private/actions:archive.bzl", "emit_unbundle_archive")
load("//rules/private/kinds:registry.bzl", "BUNDLE_KIND_NAMES")
load("//rules/private/targets:targets.bzl", "resolve_targets", "target_dir")

def _members(ctx):
    """Member files; bundles not named .o get an .o alias (archivers want objects)."""
    files = []
    for src in ctx.attr.srcs:
        if OffloadBundleInfo in src:
            files.append(src[OffloadBundleInfo].bundle)
        else:
            files.extend(src.files.to_list())
    out = []
    for f in files:
        if f.extension == "o":
            out.append(f)
            continue
        alias = ctx.actions.declare_file("_offload/%s/members/%s.o" % (ctx.label.name, f.basename))
        ctx.actions.symlink(output = alias, target_file = f)
        out.append(alias)
    return out

def _archive(ctx, members):
    """An ordinary static library of the bundled objects, by the C++ toolchain's archiver."""
    cc_toolchain = find_cc_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    outputs = cc_common.create_compilation_outputs(objects = depset(members), pic_objects = depset(members))
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        compilation_outputs = outputs,
        name = ctx.label.name,
        disallow_dynamic_library = True,
    )
    lib = linking_outputs.library_to_link
    archive = lib.static_library or lib.pic_static_library
    return archive, linking_context

def _device_archive_impl(ctx):
    members = _members(ctx)
    if ctx.file.archive and members:
        fail("%s: give srcs (bundles to archive) or archive (an existing one), not both" % ctx.label)
    if not ctx.file.archive and not members:
        fail("%s: give srcs or archive" % ctx.label)
    linking_context = None
    if ctx.file.archive:
        archive = ctx.file.archive
    else:
        archive, linking_context = _archive(ctx, members)

    targets, err = resolve_targets(ctx.attr.targets, ctx.attr.kind, False)
    if err:
        fail("%s: %s" % (ctx.label, err))
    outs = [
        ctx.actions.declare_file("_offload/%s/%s/lib%s.a" % (ctx.label.name, t.dir, ctx.label.name))
        for t in targets
    ]
    if targets:
        emit_unbundle_archive(ctx, find_offload_tool(ctx), archive, [t.bundle_id for t in targets], outs, ctx.attr.allow_missing)
    per_target = {t.name: o for t, o in zip(targets, outs)}
    providers = [
        DefaultInfo(files = depset([archive] + outs), runfiles = ctx.runfiles(files = [archive] + outs)),
        OffloadDeviceArchiveInfo(
            archive = archive,
            bundle_ids = [t.bundle_id for t in targets],
            per_target = per_target,
        ),
        OutputGroupInfo(
            archive = depset([archive]),
            device_archives = depset(outs),
            **{"target_" + target_dir(t.name): depset([o]) for t, o in zip(targets, outs)}
        ),
    ]
    if linking_context:
        providers.append(CcInfo(linking_context = linking_context))
    return providers

device_archive = rule(
    implementation = _device_archive_impl,
    doc = """Creates a heterogeneous device archive and unbundles it per target.

srcs are bundles (offload_bundle targets, or objects with bundle sections):
they become the members of lib<name>.a, an ordinary static library made by
the C++ toolchain's archiver (deterministic) and returned as CcInfo. For
each target, one OffloadUnbundleArchive action (`offload bundler -type=a
-unbundle`) extracts the compatible device code into a per-target device
archive, as clang-offload-bundler does for a device linker. An existing
archive can be given instead of srcs.""",
    attrs = {
        "srcs": attr.label_list(
            doc = "Bundles to archive: offload_bundle targets or bundled object files.",
            allow_files = True,
        ),
        "archive": attr.label(
            doc = "An existing heterogeneous archive to unbundle (instead of srcs).",
            allow_single_file = [".a"],
        ),
        "targets": attr.string_list(
            doc = "Targets to extract a device archive for (same forms as offload_bundle).",
        ),
        "kind": attr.string(
            doc = "Offload kind of the targets: \"hip\" or \"openmp\" (hip and hipv4 entries are interchangeable).",
            default = BUNDLE_KIND_NAMES[0],
            values = BUNDLE_KIND_NAMES,
        ),
        "allow_missing": attr.bool(
            doc = "Write an empty device archive for a target no member has code for, instead of failing.",
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
