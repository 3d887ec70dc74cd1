"""The registration action: `offload wrap` writes host code that registers images."""

load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def emit_wrap(ctx, tool, kind, inputs, out, emit = "c", entries = "", triple = "", flags = []):
    """Runs `offload wrap`, llvm-offload-wrapper's job without an LLVM backend.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      kind: "hip", "cuda" or "openmp".
      inputs: list of File: one bundle (hip) or fat binary (cuda), or the
        OpenMP device images / OffloadBinaries.
      out: File to write (C source for emit "c").
      emit: "c", "s", "ll" or "obj".
      entries: offload entry layout: "llvm20" (LLVM 20+ runtimes) or
        "legacy" (LLVM 14-19 runtimes such as libomptarget 16); "" for the
        tool's default.
      triple: the host triple; "" for the tool's default.
      flags: more flags of the kind (--offload-binaries).

    Returns:
      The output File.
    """
    args = ctx.actions.args()
    args.add("wrap")
    args.add("--kind=" + kind)
    args.add("--emit=" + emit)
    if entries:
        args.add("--entries=" + entries)
    if triple:
        args.add("--triple=" + triple)
    args.add_all(flags)
    if emit in ("c", "s"):
        # Image bytes go into the source: an .incbin of the input's path
        # would tie the compile to this action's file layout.
        args.add("--inline")
    args.add("-o", out)
    args.add_all(inputs)
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = MNEMONICS.wrap,
        progress_message = "Writing %s registration code %s (%s)" % (kind, out.short_path, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return out
