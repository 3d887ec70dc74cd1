"""offload_package: per-target device compiles packaged as an OffloadBinary."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("//rules/private:attrs.bzl", "compile_attrs")
load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:device_compiles.bzl", "output_groups", "source_and_prebuilt_images")
load("//rules/private:providers.bzl", "OffloadPackageInfo")
load("//rules/private:toolchain.bzl", "find_offload_tool")
load("//rules/private/actions:package.bzl", "emit_embed", "emit_package")
load("//rules/private/kinds:registry.bzl", "KINDS")

def _offload_package_impl(ctx):
    kind = KINDS[ctx.attr.kind]
    file_type = ctx.attr.type
    code_object = kind.bundle.code_objects and file_type == "o"
    found = source_and_prebuilt_images(ctx, kind, file_type, code_object, "always" if ctx.attr.link else "never")
    images = found.compiled + found.prebuilt

    tool = find_offload_tool(ctx)
    out = ctx.actions.declare_file(ctx.attr.out or ctx.label.name + ".offloadbin")
    emit_package(ctx, tool, images, out)
    files = [out]
    embedded = None
    if ctx.file.embed_into:
        embedded = ctx.actions.declare_file(ctx.label.name + ".embedded.o")
        emit_embed(ctx, tool, ctx.file.embed_into, out, embedded)
        files.append(embedded)
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files)),
        OffloadPackageInfo(package = out, offload_kind = kind.name, images = images, embedded = embedded),
        OutputGroupInfo(
            package = depset([out]),
            compile_commands = found.commands,
            embedded = depset([embedded] if embedded else []),
            **output_groups(images)
        ),
    ]

_ATTRS = compile_attrs("o")
_ATTRS.update({
    "images": attr.label_keyed_string_dict(
        doc = "Prebuilt device images to package: {label: target}. (The macro takes {target: label}.)",
        allow_files = True,
    ),
    "embed_into": attr.label(
        doc = "A host object to copy with the package added as a .llvm.offloading section " +
              "(`offload embed`), as clang -fembed-offload-object does.",
        allow_single_file = [".o"],
    ),
    "out": attr.string(doc = "Output file name; default <name>.offloadbin."),
    "link": attr.bool(
        doc = "Device-link each target's code into one loadable image (an AMDGPU code object, " +
              "or an ELF shared object for an OpenMP host-CPU device), as clang-linker-wrapper " +
              "does at link time; runtimes that load images directly need this. Default: one " +
              "unlinked image per (source, target), as the new offload driver packages them.",
    ),
})

offload_package_rule = rule(
    implementation = _offload_package_impl,
    doc = """Compiles device code for every target and packages it as an OffloadBinary.

One OffloadCompile action per (source, target), each an image with its
triple, arch and offload kind, and one OffloadPackage action (the new offload
driver's container, read by clang-linker-wrapper and llvm-objdump --offloading).""",
    attrs = _ATTRS,
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE), str(CLANG_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
