"""offload_bundle: per-target device compiles bundled by `offload bundler`."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("//rules/private:attrs.bzl", "compile_attrs")
load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "DEFAULT_HOST_TRIPLE", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:device_compiles.bzl", "output_groups", "source_and_prebuilt_images")
load("//rules/private:providers.bzl", "OffloadBundleInfo")
load("//rules/private:toolchain.bzl", "find_clang", "find_offload_tool")
load("//rules/private/actions:bundle.bzl", "emit_bundle")
load("//rules/private/kinds:registry.bzl", "KINDS")
load("//rules/private/targets:targets.bzl", "conflicting_targets", "entry_id_error", "parse_entry_id")
load("//rules/private/targets:triple.bzl", "normalize_triple")

# Text bundle types hold one source per target; so do bitcode bundles.
_ONE_SOURCE_TYPES = ["bc", "ll", "s", "i", "ii", "cui", "hipi"]

def _parse_host_id(triple):
    """(the host entry ID of a triple, error)."""
    e, err = parse_entry_id("host-" + normalize_triple(triple.split("-"), 4) + "-")
    return (e.id if e else ""), err or (entry_id_error(e) if e else "")

# The usual host entry, parsed once when this file loads, not per bundle.
_DEFAULT_HOST_ID = _parse_host_id(DEFAULT_HOST_TRIPLE)[0]

def _host_bundle_id(ctx, triple):
    if triple == DEFAULT_HOST_TRIPLE:
        return _DEFAULT_HOST_ID
    entry, err = _parse_host_id(triple)
    if err:
        fail("%s: host_triple %r is not a valid triple: %s" % (ctx.label, triple, err))
    return entry

def _host_triple(ctx):
    """The host entry's triple: given, else the one clang pairs with this container.

    A fat binary's host entry is x86_64-unknown-linux-gnu whatever the host
    (clang writes it so). A bundled host object is unbundled by clang with
    its driver's own triple (x86_64-pc-linux-gnu on Debian): under another
    triple clang finds no host entry, extracts an empty file and the link
    fails with "file is empty".
    """
    if ctx.attr.host_triple:
        return ctx.attr.host_triple
    if not ctx.file.host:
        return DEFAULT_HOST_TRIPLE
    triple = find_clang(ctx).host_triple
    if not triple:
        fail(("%s: host: clang unbundles a bundled object by its driver's triple (`clang " +
              "-print-target-triple`), which the clang toolchain does not record; set host_triple " +
              "here or on offload_clang_toolchain, or use an offload_llvm_repository toolchain") % ctx.label)
    return triple

def _bundle_id(image):
    return image.bundle_id

def _offload_bundle_impl(ctx):
    kind = KINDS[ctx.attr.kind]
    if kind.bundle.error:
        fail("%s: %s" % (ctx.label, kind.bundle.error))
    file_type = ctx.attr.type
    code_object = kind.bundle.code_objects and file_type == "o"
    srcs = ctx.files.srcs
    if len(srcs) > 1 and (file_type in _ONE_SOURCE_TYPES or not kind.bundle.links_sources):
        fail("%s: a %s bundle of type %r holds one source per target; got %d sources" % (ctx.label, kind.name, file_type, len(srcs)))

    found = source_and_prebuilt_images(ctx, kind, file_type, code_object, "auto" if kind.bundle.links_sources else "never")
    targets = found.targets
    seen = {t.bundle_id: True for t in targets}
    for t in found.prebuilt_targets:
        if t.bundle_id in seen:
            fail("%s: target %r is both compiled from srcs and given in images" % (ctx.label, t.name))
        seen[t.bundle_id] = True
    err = conflicting_targets(targets + found.prebuilt_targets)
    if err:
        fail("%s: %s" % (ctx.label, err))
    images = sorted(found.compiled + found.prebuilt, key = _bundle_id)

    host = ctx.file.host
    if not host:
        host = ctx.actions.declare_file("_offload/%s/host.empty" % ctx.label.name)
        ctx.actions.write(host, "")
    align = ctx.attr.align
    if align < 0:
        align = 4096 if code_object else 0
    out = ctx.actions.declare_file(ctx.attr.out or (ctx.label.name + _extension(kind, file_type, ctx.file.host)))
    host_id = _host_bundle_id(ctx, _host_triple(ctx))
    emit_bundle(ctx, find_offload_tool(ctx), file_type, host_id, host, images, out, align, ctx.attr.compress)
    return [
        DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out])),
        OffloadBundleInfo(
            bundle = out,
            type = file_type,
            offload_kind = kind.name,
            host_bundle_id = host_id,
            host = ctx.file.host,
            images = images,
            align = align,
            compressed = ctx.attr.compress,
        ),
        OutputGroupInfo(compile_commands = found.commands, **output_groups(images)),
    ]

def _extension(kind, file_type, host):
    if file_type == "o":
        if host:
            return ".o"
        return kind.bundle.ext
    return "." + file_type

_ATTRS = compile_attrs("o")
_ATTRS.update({
    "images": attr.label_keyed_string_dict(
        doc = "Prebuilt device images to bundle instead of compiling: {label: target}. " +
              "(The offload_bundle macro takes {target: label}.)",
        allow_files = True,
    ),
    "host": attr.label(
        doc = "The host entry's input: a host object makes an object with bundle sections " +
              "(type \"o\"). Without it the host entry is empty, as in clang's HIP fat binaries.",
        allow_single_file = True,
    ),
    "host_triple": attr.string(
        doc = "The host entry's triple. Default: with host, the clang toolchain's host triple " +
              "(clang unbundles host objects by it); without, x86_64-unknown-linux-gnu (clang's " +
              "HIP fat binaries).",
    ),
    "align": attr.int(
        doc = "-bundle-align for binary bundles. -1: 4096 for HIP code objects (clang's choice), else 1.",
        default = -1,
    ),
    "compress": attr.bool(
        doc = "Write a compressed bundle (CCOB, zstd), as clang --offload-compress does.",
    ),
    "out": attr.string(
        doc = "Output file name; default <name>.hipfb (HIP fat binary), <name>.o (with host), " +
              "<name>.bundle or <name>.<type>.",
    ),
})

offload_bundle_rule = rule(
    implementation = _offload_bundle_impl,
    doc = """Compiles device code for every target and bundles it with `offload bundler`.

One OffloadCompile action per (source, target) — plus one OffloadDeviceLink
per target when several HIP sources make one code object — and one cheap
OffloadBundle action. Adding a target re-runs only that target's compiles.""",
    attrs = _ATTRS,
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE), str(CLANG_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
