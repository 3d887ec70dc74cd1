"""The device compile action, one per (source, target), and the flags it shares with the host compile."""

load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "MNEMONICS", "SUPPORTS_PATH_MAPPING", "stable_id", "toolchain_kwargs")
load("//rules/private:headers.bzl", "add_header_flags")

def target_flags(target, kind):
    """The clang flags that select one offload target for a device-only compile.

    Args:
      target: a struct from targets.resolve_target.
      kind: the offload kind's struct (kinds/registry.bzl).

    Returns:
      list of string.
    """
    flags = list(kind.compile.language_flags)
    if target.processor:
        flags.append("--offload-arch=" + (target.target_id or target.processor))
    else:
        flags.append("-fopenmp-targets=" + target.triple)
    flags.append("--offload-device-only")
    return flags + kind.compile.device_only_flags

def source_cuid(ctx, src):
    """The default compilation unit ID of a source: the same on every machine.

    The device compiles and the host compile of a source must agree on it:
    names of static __device__ variables and the fat binary symbol derive
    from it.

    Args:
      ctx: the rule context.
      src: File.

    Returns:
      string.
    """
    return stable_id(str(ctx.label) + "|" + src.short_path)

def add_source_flags(args, clang, kind, wavefront, src, out, copts, headers):
    """Adds the flags every compile of a source shares (device or host half).

    Order: toolchain flags, SDK flags of the kind, the wavefront define,
    the headers' defines and include directories (cc_library's, from
    headers.bzl), the rule's copts.

    Args:
      args: the action's Args.
      clang: OffloadClangInfo.
      kind: the offload kind's struct.
      wavefront: the __AMDGCN_WAVEFRONT_SIZE to define (old HIP headers), or 0.
      src: File, the source.
      out: File, an output of the action (the anchor of bin-relative include
        directories).
      copts: list of string, after everything else.
      headers: struct from headers.rule_headers.

    Returns:
      (depset of input Files, execution requirements dict).
    """

    # Debug info and __FILE__ must not name the execroot or sandbox.
    args.add("-fdebug-compilation-dir=.")
    args.add_all(clang.copts)
    args.add_all(clang.kind_copts.get(kind.name, []))
    if wavefront:
        args.add("-D__AMDGCN_WAVEFRONT_SIZE=%d" % wavefront)
    transitive = [clang.files, headers.headers]
    if kind.name in clang.kind_files:
        transitive.append(clang.kind_files[kind.name])
    add_header_flags(args, headers, out)
    args.add_all(copts)

    # Include directories of another configuration or outside the execroot
    # arrive as strings that path mapping cannot rewrite.
    mapping = dict(SUPPORTS_PATH_MAPPING) if headers.mappable else {}
    return depset([src], transitive = transitive), mapping

def device_compile_command(
        ctx,
        clang,
        src,
        target,
        out,
        kind,
        emit_flags,
        headers,
        copts = [],
        cuid = "",
        all_targets = []):
    """The command that compiles one source for one offload target.

    Args:
      ctx: the rule context (for actions and label).
      clang: OffloadClangInfo.
      src: File, the source.
      target: struct from targets.resolve_target.
      out: File to write.
      kind: the offload kind's struct.
      emit_flags: what to produce (["-c"], ["-S"], ["-c", "-emit-llvm"], ...).
      headers: struct from headers.rule_headers: what the source may
        include, include directories and defines, as cc_library's.
      copts: the rule's flags, after the toolchain's.
      cuid: the compilation unit ID for HIP/CUDA; derived from the label
        and source when empty, so it is the same on every machine.
      all_targets: every resolved target of the rule, for the flags the
        kind derives from the whole list (kind.compile.target_list_flags).

    Returns:
      struct(args, inputs, outputs, mapping, what) for run_command.
    """
    args = ctx.actions.args()
    args.add_all(target_flags(target, kind))
    args.add_all(emit_flags)
    if kind.compile.cuid:
        args.add("-cuid=" + (cuid or source_cuid(ctx, src)))
    args.add_all(kind.compile.target_list_flags(all_targets))
    kind.compile.add_flags(args, clang, target, emit_flags, copts)
    inputs, mapping = add_source_flags(args, clang, kind, kind.compile.wavefront(clang, target), src, out, copts, headers)
    args.add("-o", out)
    args.add(src)
    return struct(args = args, inputs = inputs, outputs = [out], mapping = mapping, what = "%s for %s" % (src.short_path, target.name))

def run_command(ctx, clang, command, mnemonic, progress):
    """Runs one clang command (from device_compile_command or host_compile_command) as an action."""
    ctx.actions.run(
        executable = clang.executable or clang.path,
        arguments = [command.args],
        inputs = command.inputs,
        outputs = command.outputs,
        mnemonic = mnemonic,
        progress_message = "%s %s (%s)" % (progress, command.what, ctx.label),
        execution_requirements = command.mapping,
        env = clang.env,
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )

def emit_device_compile(ctx, clang, src, target, out, kind, emit_flags, **kwargs):
    """Compiles one source for one offload target: device_compile_command as an action.

    Returns:
      The output File.
    """
    run_command(ctx, clang, device_compile_command(ctx, clang, src, target, out, kind, emit_flags, **kwargs), MNEMONICS.compile, "Compiling")
    return out
