"""The NVIDIA fat binary: cubins and PTX in the container the CUDA runtime loads."""

load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")
load("//rules/private:toolchain.bzl", "find_clang")

def fatbinary_image_flag(image):
    """fatbinary's --image3 for one device image, as clang's CUDA driver writes it (offload fatbin takes it too).

    Args:
      image: OffloadImageInfo of a cubin or PTX image.

    Returns:
      string without the file ("--image3=kind=elf,sm=70,file="): the file
      follows.
    """
    kind = "ptx" if image.image_kind == "ptx" else "elf"
    return "--image3=kind=%s,sm=%s,file=" % (kind, image.processor[len("sm_"):])

def _clang_order(image):
    """clang's driver lists images by architecture (sm_52, sm_90, sm_90a), cubin before PTX."""
    arch = image.processor[len("sm_"):]
    digits = ""
    for c in arch.elems():
        if not c.isdigit():
            break
        digits += c
    number = int(digits) if digits else 0
    return (number, arch[len(digits):], 1 if image.image_kind == "ptx" else 0)

def emit_fatbinary(ctx, tool, images, out):
    """Runs `offload fatbin` over one source's images: the NVIDIA fat binary.

    `offload fatbin` takes fatbinary's command line and writes its bytes
    (docs/nvfatbin.md), so CUDA needs nothing from NVIDIA for PTX and only
    ptxas for cubins. The command line is the one clang's driver gives
    fatbinary, images in its order, so the bytes equal clang's; then
    --cuda-version with the version of the CUDA installation the device
    clang compiles against, whose fatbinary's bytes are written (CUDA 13's
    compress with ZSTD where 11.8's use LZ4).

    Args:
      ctx: the rule context (with the device clang: find_clang).
      tool: OffloadToolInfo.
      images: list of OffloadImageInfo (cubins and PTX).
      out: File, the fat binary to write.

    Returns:
      The output File.
    """

    # NVIDIA's family targets (sm_100f): how fatbinary 12.9 and later mark
    # their entries is not known to offload fatbin (docs/nvfatbin.md), which
    # refuses them; say so at analysis, with what works instead.
    for image in images:
        if image.processor.startswith("sm_") and image.processor.endswith("f"):
            fail(("target %r: NVIDIA fat binaries of family-specific targets are not written (offload fatbin " +
                  "does not know how fatbinary 12.9 and later mark them); use %s or %sa, or offload_package " +
                  "for the cubin alone") % (image.processor, image.processor[:-1], image.processor[:-1]))
    args = ctx.actions.args()
    args.add("fatbin")
    args.add_all(["-64", "--create", out])
    for image in sorted(images, key = _clang_order):
        args.add(image.file, format = fatbinary_image_flag(image) + "%s")

    # The CUDA installation's version ("unknown" when cuda.h has none: then
    # offload fatbin's default, CUDA 11.8's bytes).
    cuda = getattr(find_clang(ctx), "cuda", None)
    version = getattr(cuda, "version", "") if cuda and getattr(cuda, "found", False) else ""
    if version and version.replace(".", "").isdigit():
        args.add("--cuda-version=" + version)
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [image.file for image in images],
        outputs = [out],
        mnemonic = MNEMONICS.fatbinary,
        progress_message = "Writing NVIDIA fat binary %s (%s)" % (out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out
