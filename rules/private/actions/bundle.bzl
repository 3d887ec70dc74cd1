"""The bundling action: device images (and a host entry) into one bundle."""

load("//rules/private:common.bzl", "DEFAULT_HOST_TRIPLE", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def emit_bundle(ctx, tool, file_type, host_bundle_id, host, images, out, align = 0, compress = False):
    """Runs `offload bundler` once for all targets.

    The command line is clang-offload-bundler's: -targets lists the host
    entry first, then the device entries in the given order (callers sort
    them by bundle ID so the bytes do not depend on BUILD file order).

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      file_type: the bundler -type ("o", "bc", "ll", ...).
      host_bundle_id: the standardized host entry ID.
      host: File, the host entry's input (an empty file for none).
      images: list of OffloadImageInfo, in bundle order.
      out: File to write.
      align: -bundle-align, or 0 for the bundler's default (1).
      compress: whether to write a compressed (CCOB) bundle.

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add("bundler")
    args.add("-type=" + file_type)
    args.add_joined(
        [host_bundle_id] + [i.bundle_id for i in images],
        join_with = ",",
        format_joined = "-targets=%s",
    )
    args.add(host, format = "-input=%s")
    args.add_all([i.file for i in images], format_each = "-input=%s")
    args.add(out, format = "-output=%s")
    if align:
        args.add("-bundle-align=%d" % align)
    if compress:
        args.add("-compress")
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [host] + [i.file for i in images],
        outputs = [out],
        mnemonic = MNEMONICS.bundle,
        progress_message = "Bundling %d targets into %s (%s)" % (len(images), out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out

def _bundle_id(image):
    return image.bundle_id

def emit_hip_fatbin(ctx, tool, images, out):
    """Writes a HIP fat binary as clang does: an empty host entry, 4096-byte alignment.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      images: list of OffloadImageInfo, one per target (any order: they
        are sorted by bundle ID, so the bytes do not depend on it).
      out: File, the .hipfb to write.

    Returns:
      The output File.
    """
    host = ctx.actions.declare_file(out.basename + ".host.empty", sibling = out)
    ctx.actions.write(host, "")
    host_id = "host-%s-" % DEFAULT_HOST_TRIPLE
    return emit_bundle(ctx, tool, "o", host_id, host, sorted(images, key = _bundle_id), out, 4096)

# The bundle entry ID of a linked image in the new driver's HIP fat binary.
def _linked_entry(image):
    return struct(bundle_id = "hip-%s--%s" % (image.triple, image.target_id or image.processor), file = image.file)

def emit_linked_hip_fatbin(ctx, tool, images, out, host_triple):
    """Writes a HIP fat binary as clang's new driver does (clang-linker-wrapper --emit-fatbin-only).

    An empty host-<host triple> entry, then one hip- entry per linked
    image (not hipv4-), 4096-byte alignment. The wrapper sorts its images
    by target ID from the last to the first (gfx90a:xnack+, gfx906,
    gfx1030) before it bundles them, and the bundle's bytes follow that
    order.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      images: list of OffloadImageInfo, one linked code object per target
        (any order).
      out: File, the .hipfb to write.
      host_triple: the host triple clang's driver uses.

    Returns:
      The output File.
    """
    host = ctx.actions.declare_file(out.basename + ".host.empty", sibling = out)
    ctx.actions.write(host, "")
    entries = sorted([_linked_entry(i) for i in images], key = _bundle_id, reverse = True)
    return emit_bundle(ctx, tool, "o", "host-" + host_triple, host, entries, out, 4096)
