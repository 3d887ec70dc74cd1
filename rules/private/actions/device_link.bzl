"""The device link: one OffloadDeviceLink per target.

Two callers, one action: several sources' code of one rule linked into a
loadable image (offload_bundle of HIP sources, offload_package(link =
True)), and a program's relocatable device code linked once
(offload_device_link), as clang-linker-wrapper runs it. The target's device
family (kinds/families.bzl) says which flags and SDK files.
"""

load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "MNEMONICS", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def device_link_flags(clang, target, rdc, mode_flags = []):
    """The clang arguments of a device link, before -o and the objects, in groups.

    AMDGPU: lld links a code object (rdc: full LTO of the bitcode, with the
    ROCm flags the compiles had). NVIDIA, relocatable cubins:
    clang-nvlink-wrapper runs the CUDA installation's nvlink. OpenMP
    host-CPU devices: an ELF shared object, which the runtime's CPU plugin
    loads with dlopen.

    Args:
      clang: OffloadClangInfo.
      target: a resolved target.
      rdc: whether the objects are relocatable device code of a program
        (flags as clang-linker-wrapper's), else one rule's sources.
      mode_flags: flags of the compilation mode (-O2 under -c opt; rdc).

    Returns:
      list of lists of string (the toolchain's, the family's and the mode's
      flags, each added to the command line as one group), or None when the
      target cannot be linked here.
    """
    flags = target.family.device_link_flags(clang, target, rdc)
    if flags == None:
        return None
    if rdc:
        return [clang.link_flags, flags, mode_flags]
    return [flags, clang.link_flags]

def emit_device_link(ctx, clang, target, objects, out, rdc = False, mode_flags = [], kind = None):
    """Links one target's device objects into one image.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      target: a resolved target.
      objects: list or depset of File, all for target.
      out: File, the image to write.
      rdc: see device_link_flags.
      mode_flags: see device_link_flags.
      kind: the offload kind's struct, whose device_link may replace the
        family's flags of a relocatable link (OpenMP's AMDGPU link adds its
        device runtime), or None.

    Returns:
      The output File.
    """
    own = kind.link.device_link(clang, target) if kind and rdc else None
    if own:
        groups = [clang.link_flags, own.flags, mode_flags]
    else:
        groups = device_link_flags(clang, target, rdc, mode_flags)
    if groups == None:
        fail("%s: device linking for %s needs NVIDIA's nvlink, which these rules do not run" % (ctx.label, target.name))
    args = ctx.actions.args()
    for flags in groups:
        args.add_all(flags)
    args.add("-o", out)
    args.add_all(objects)
    if own:
        args.add_all(own.trailing)
    if rdc:
        extra = own.files if own else []
        inputs = depset(transitive = [objects, clang.files] + target.family.device_link_files(clang) + extra)
        what = "relocatable device code"
    else:
        inputs = depset(objects, transitive = [clang.files])
        what = "device code"
    ctx.actions.run(
        executable = clang.executable or clang.path,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = MNEMONICS.device_link,
        progress_message = "Linking %s for %s (%s)" % (what, target.name, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        env = clang.env,
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )
    return out
