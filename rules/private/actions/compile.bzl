"""Device compile and device link actions: one per (source, target), one per target."""

load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "LANGUAGE_FLAGS", "MNEMONICS", "SUPPORTS_PATH_MAPPING", "stable_id", "toolchain_kwargs")

def target_flags(target, kind):
    """The clang flags that select one offload target for a device-only compile.

    Args:
      target: a struct from targets.resolve_target.
      kind: "hip", "cuda" or "openmp".

    Returns:
      list of string.
    """
    flags = list(LANGUAGE_FLAGS[kind])
    if target.processor:
        flags.append("--offload-arch=" + (target.target_id or target.processor))
    else:
        flags.append("-fopenmp-targets=" + target.triple)
    flags.append("--offload-device-only")
    if kind == "hip":
        flags.append("--no-gpu-bundle-output")
    return flags

def wavefront_size(processor):
    """The default wavefront size of an AMDGPU processor: 32 from gfx10 on, else 64.

    Old HIP headers (ROCm before 6) take warpSize from __AMDGCN_WAVEFRONT_SIZE,
    which clang 22 no longer predefines; the toolchain defines it per target.

    Args:
      processor: "gfx906", "gfx1030", ...

    Returns:
      int.
    """
    digits = processor[len("gfx"):]
    if len(digits) >= 4 and digits[:2] in ("10", "11", "12"):
        return 32  # gfx1010 ... gfx1201, and gfx10-1-generic ... gfx12-generic
    return 64

def hip_bitcode_flags(clang, copts):
    """Links ROCm 5's hip.bc into a HIP device compile, as the clang of ROCm 5 did.

    ROCm 5's HIP headers implement __syncthreads, __threadfence and friends
    with functions of hip.bc (__atomic_work_item_fence); clang 22 does not
    link that library by itself, so such kernels fail to link
    ("undefined hidden symbol: __atomic_work_item_fence"). A ROCm without
    hip.bc gets no flag. -nogpulib opts out, as for the other device
    libraries.

    Args:
      clang: OffloadClangInfo.
      copts: the rule's copts.

    Returns:
      list of string: the -Xclang flags, or none.
    """
    rocm = clang.rocm
    if not rocm or not rocm.found or not rocm.hip_bitcode:
        return []
    if "-nogpulib" in clang.copts + clang.kind_copts.get("hip", []) + copts:
        return []
    return ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", rocm.hip_bitcode.path]

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

def add_source_flags(args, clang, kind, wavefront, src, copts, defines, includes, compilation_context, hdrs):
    """Adds the flags every compile of a source shares (device or host half).

    Order: toolchain flags, SDK flags of the kind, the wavefront define,
    deps' compilation context, the rule's defines and includes, its copts.

    Args:
      args: the action's Args.
      clang: OffloadClangInfo.
      kind: "hip", "cuda" or "openmp".
      wavefront: the __AMDGCN_WAVEFRONT_SIZE to define (old HIP headers), or 0.
      src: File, the source.
      copts: list of string, after everything else.
      defines: list of "NAME=VALUE" for -D.
      includes: list of execroot-relative include directories.
      compilation_context: CcInfo.compilation_context of deps, or None.
      hdrs: list of File the source may include.

    Returns:
      (depset of input Files, execution requirements dict).
    """

    # Debug info and __FILE__ must not name the execroot or sandbox.
    args.add("-fdebug-compilation-dir=.")
    args.add_all(clang.copts)
    args.add_all(clang.kind_copts.get(kind, []))
    if wavefront and clang.hip_wavefront_define:
        args.add("-D__AMDGCN_WAVEFRONT_SIZE=%d" % wavefront)
    transitive = [clang.files]
    if kind in clang.kind_files:
        transitive.append(clang.kind_files[kind])
    mapping = dict(SUPPORTS_PATH_MAPPING)
    if compilation_context:
        # Include directories arrive as strings that path mapping cannot
        # rewrite, so actions whose deps add some run with unmapped paths.
        if (compilation_context.includes or compilation_context.quote_includes or
            compilation_context.system_includes):
            mapping = {}
        args.add_all(compilation_context.defines, format_each = "-D%s")
        args.add_all(compilation_context.includes, format_each = "-I%s")
        args.add_all(compilation_context.quote_includes, before_each = "-iquote")
        args.add_all(compilation_context.system_includes, before_each = "-isystem")
        transitive.append(compilation_context.headers)
    args.add_all(defines, format_each = "-D%s")
    args.add_all(includes, format_each = "-I%s")
    args.add_all(copts)
    return depset([src] + list(hdrs), transitive = transitive), mapping

def device_compile_command(
        ctx,
        clang,
        src,
        target,
        out,
        kind,
        emit_flags,
        copts = [],
        defines = [],
        includes = [],
        compilation_context = None,
        hdrs = [],
        cuid = ""):
    """The command that compiles one source for one offload target.

    Args:
      ctx: the rule context (for actions and label).
      clang: OffloadClangInfo.
      src: File, the source.
      target: struct from targets.resolve_target.
      out: File to write.
      kind: "hip", "cuda" or "openmp".
      emit_flags: what to produce (["-c"], ["-S"], ["-c", "-emit-llvm"], ...).
      copts: the rule's flags, after the toolchain's.
      defines: list of "NAME=VALUE" for -D.
      includes: list of include directories (execroot-relative) for -I.
      compilation_context: CcInfo.compilation_context of deps, or None.
      hdrs: list of File, headers the source may include.
      cuid: the compilation unit ID for HIP/CUDA; derived from the label
        and source when empty, so it is the same on every machine.

    Returns:
      struct(args, inputs, outputs, mapping, what) for run_command.
    """
    args = ctx.actions.args()
    args.add_all(target_flags(target, kind))
    args.add_all(emit_flags)
    if kind in ("hip", "cuda"):
        args.add("-cuid=" + (cuid or source_cuid(ctx, src)))
    if clang.ptxas and kind == "cuda" and "-c" in emit_flags and "-emit-llvm" not in emit_flags:
        args.add("--ptxas-path=" + clang.ptxas)  # a cubin: clang runs ptxas
    wavefront = 0
    if kind == "hip" and target.triple.startswith("amdgcn"):
        wavefront = wavefront_size(target.processor)
        args.add_all(hip_bitcode_flags(clang, copts))
    inputs, mapping = add_source_flags(args, clang, kind, wavefront, src, copts, defines, includes, compilation_context, hdrs)
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
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )

def emit_device_compile(ctx, clang, src, target, out, kind, emit_flags, **kwargs):
    """Compiles one source for one offload target: device_compile_command as an action.

    Returns:
      The output File.
    """
    run_command(ctx, clang, device_compile_command(ctx, clang, src, target, out, kind, emit_flags, **kwargs), MNEMONICS.compile, "Compiling")
    return out

def link_flags(target):
    """clang flags that link one target's device code into a loadable image.

    AMDGPU: a code object (lld -shared for the processor and its features).
    OpenMP host-CPU devices: an ELF shared object, which the runtime's CPU
    plugin loads with dlopen.
    NVIDIA would need nvlink: not supported.

    Args:
      target: struct from targets.resolve_target.

    Returns:
      list of string, or None when the target cannot be linked here.
    """
    if target.triple.startswith("amdgcn") or target.triple.startswith("spirv"):
        return ["--target=" + target.triple, "-mcpu=" + target.target_id, "-nostdlib"]
    if not target.processor:
        return ["--target=" + target.triple, "-shared"]
    return None

def emit_device_link(ctx, clang, objects, target, out):
    """Links one target's device code (several sources) into one image.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      objects: list of File, one per source, all for target.
      target: struct from targets.resolve_target.
      out: File, the code object to write.

    Returns:
      The output File.
    """
    flags = link_flags(target)
    if flags == None:
        fail("%s: device linking for %s needs NVIDIA's nvlink, which these rules do not run" % (ctx.label, target.name))
    args = ctx.actions.args()
    args.add_all(flags)
    args.add_all(clang.link_flags)
    args.add("-o", out)
    args.add_all(objects)
    ctx.actions.run(
        executable = clang.executable or clang.path,
        arguments = [args],
        inputs = depset(objects, transitive = [clang.files]),
        outputs = [out],
        mnemonic = MNEMONICS.device_link,
        progress_message = "Linking device code for %s (%s)" % (target.name, ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )
    return out
