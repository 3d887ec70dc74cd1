"""The device link of relocatable device code: one per binary and target."""

load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "MNEMONICS", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def rdc_link_flags(clang, target):
    """What clang-linker-wrapper runs for one target, as flags of the clang driver.

    AMDGPU: full LTO of the bitcode by lld into one code object, with the
    ROCm flags the device compiles had (LTO generates code for the ABI they
    name). NVIDIA: clang-nvlink-wrapper, which runs the CUDA installation's
    nvlink over the relocatable cubins. OpenMP host-CPU devices: a shared
    object, which the runtime's CPU plugin loads with dlopen.

    Args:
      clang: OffloadClangInfo.
      target: a resolved target.

    Returns:
      list of string.
    """
    if target.triple.startswith("amdgcn"):
        flags = ["--target=" + target.triple, "-mcpu=" + target.target_id, "-flto", "-Wl,--no-undefined"]
        rocm = clang.rocm
        if rocm and rocm.found:
            flags.append("--rocm-path=" + rocm.root)
            if rocm.code_object_version:
                flags.append("-mcode-object-version=%d" % rocm.code_object_version)
        return flags + ["-flto-partitions=8"]
    if not target.processor:
        return ["--target=" + target.triple, "-shared"]
    flags = ["--target=" + target.triple, "-march=" + target.processor]
    if clang.cuda and clang.cuda.found:
        flags.append("--cuda-path=" + clang.cuda.root)
    return flags

def emit_rdc_link(ctx, clang, target, objects, mode_flags, out):
    """Links one target's device objects from every library into one image.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      target: a resolved target.
      objects: depset of File, the device objects for target.
      mode_flags: flags of the compilation mode (-O2 under -c opt).
      out: File, the image to write.

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add_all(clang.link_flags)
    args.add_all(rdc_link_flags(clang, target))
    args.add_all(mode_flags)
    args.add("-o", out)
    args.add_all(objects)
    transitive = [objects, clang.files]
    if target.triple.startswith("amdgcn") and "hip" in clang.kind_files:
        transitive.append(clang.kind_files["hip"])
    if target.triple.startswith("nvptx") and clang.cuda and clang.cuda.found:
        transitive.append(depset([f for f in [clang.cuda.nvlink] if f], transitive = [clang.cuda.files]))
    ctx.actions.run(
        executable = clang.executable or clang.path,
        arguments = [args],
        inputs = depset(transitive = transitive),
        outputs = [out],
        mnemonic = MNEMONICS.device_link,
        progress_message = "Linking relocatable device code for %s (%s)" % (target.name, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )
    return out
