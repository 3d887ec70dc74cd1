"""The packaging action: device images into an OffloadBinary."""

load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def image_metadata(image):
    """The --image keys other than file, in llvm-offload-binary's syntax.

    Args:
      image: OffloadImageInfo.

    Returns:
      "triple=...,arch=...,kind=..." (arch left out for host-CPU triples).
    """
    meta = ["triple=" + image.triple]
    if image.target_id:
        meta.append("arch=" + image.target_id)
    meta.append("kind=" + image.offload_kind)
    return ",".join(meta)

def emit_package(ctx, tool, images, out):
    """Runs `offload packager` (llvm-offload-binary) once for all images.

    Each image is one --image=file=<path>,triple=...,arch=...,kind=...
    argument. The path is a File argument (format_each), so path mapping
    can rewrite it; the image kind comes from the file's extension or magic,
    as llvm-offload-binary decides it.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      images: list of OffloadImageInfo, in package order.
      out: File to write.

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add("packager")
    args.add("-o", out)
    for image in images:
        args.add_all([image.file], format_each = "--image=file=%s," + image_metadata(image).replace("%", "%%"))
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [i.file for i in images],
        outputs = [out],
        mnemonic = MNEMONICS.package,
        progress_message = "Packaging %d images into %s (%s)" % (len(images), out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out

def emit_embed(ctx, tool, host_object, package, out):
    """Runs `offload embed`: the host object plus a .llvm.offloading section.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      host_object: File, a relocatable host object.
      package: File, the OffloadBinary to embed.
      out: File to write.

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add("embed")
    args.add(package, format = "--binary=%s")
    args.add(host_object)
    args.add("-o", out)
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [host_object, package],
        outputs = [out],
        mnemonic = MNEMONICS.embed,
        progress_message = "Embedding %s into %s (%s)" % (package.short_path, out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out
