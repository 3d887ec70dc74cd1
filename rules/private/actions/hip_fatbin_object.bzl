"""The HIP fat binary's own object: `offload hipfb-object`."""

load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def emit_hip_fatbin_object(ctx, tool, fatbin, cuid, triple, out):
    """Writes the object that defines one source's HIP fat binary.

    The source's host half is compiled without the fat binary, so clang
    leaves its symbol (__hip_fatbin_<hash of the cuid>) undefined; this
    object defines it, in .hip_fatbin as clang would embed it. The host
    compile then depends on no device image: adding or changing a target
    reruns this action, not clang.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      fatbin: File, the source's HIP fat binary.
      cuid: string, the -cuid of the source's host compile.
      triple: string, the host triple (its architecture picks the ELF machine).
      out: File, the object to write.

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add("hipfb-object")
    args.add("--cuid=" + cuid)
    args.add("--triple=" + triple)
    args.add("-o", out)
    args.add(fatbin)
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [fatbin],
        outputs = [out],
        mnemonic = MNEMONICS.hip_fatbin_object,
        progress_message = "Writing HIP fat binary object %s (%s)" % (out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out
