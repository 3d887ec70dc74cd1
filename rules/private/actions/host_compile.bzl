"""The host half of a HIP, CUDA or OpenMP source: one compile per source."""

load("//rules/private:common.bzl", "MNEMONICS")
load("//rules/private/kinds:common.bzl", "new_driver_flags")
load(":compile.bzl", "add_source_flags", "run_command")

def device_code(embed = None, separate = False, rdc = False):
    """How a source's device half reaches the program, as its host compile sees it.

    With none set (OpenMP, whose device compiles run beside the host
    compile, and the editors' commands) the host compile adds nothing for
    the device half.

    Args:
      embed: File or None: the fat binary the host object embeds
        (-fcuda-include-gpubinary; CUDA whole-program).
      separate: whether the fat binary is in an object of its own, which the
        host object refers to by the symbol clang names after the cuid (HIP
        whole-program); the compile then names no target.
      rdc: whether the device half is relocatable device code, linked per
        program: the host object gets offload entries.

    Returns:
      struct.
    """
    return struct(embed = embed, separate = separate, rdc = rdc)

def host_compile_command(ctx, clang, src, kind, targets, code, out, cuid, source_kwargs):
    """The command that compiles the host half of one source.

    CUDA, whole-program: `-Xclang -fcuda-include-gpubinary` is what clang's
    own one-step `-c` does: the object then holds the fat binary and the
    constructor that registers it and the source's kernels with the runtime.
    HIP, whole-program: the same constructor, but the fat binary is left to
    the symbol clang names after the cuid, which an object of its own
    defines (emit_hip_fatbin_object); without the images and the
    --offload-arch list, which do not change clang's host code, the compile
    does not rerun when a target is added or a device image changes.
    RDC: the new offload driver's host object, whose offload entries the
    program's registration reads. The cuid must be the device compiles' one.
    OpenMP: the host half of -fopenmp-targets, whose offload entries the
    program's registration (offload_device_link) reads.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      src: File, the source.
      kind: the offload kind's struct (kinds/registry.bzl).
      targets: resolved targets (their --offload-arch flags, or their
        triples for -fopenmp-targets).
      code: device_code(...): how the device half reaches the program.
      out: File, the host object to write.
      cuid: string, the compilation unit ID (HIP and CUDA).
      source_kwargs: dict: copts, headers (as for emit_device_compile).

    Returns:
      struct(args, inputs, outputs, mapping, what) for run_command.
    """
    args = ctx.actions.args()
    args.add_all(kind.host.flags(clang, [] if code.separate else targets, cuid))

    # Host objects may go into shared libraries (cc_test links dynamically).
    args.add("-fPIC")
    inputs, mapping = add_source_flags(
        args,
        clang,
        kind,
        kind.host.wavefront(clang),
        src,
        out,
        **source_kwargs
    )
    embedded = []
    if code.rdc:
        # Relocatable device code: the object gets offload entries
        # (section llvm_offload_entries) that the link's registration reads.
        args.add_all(new_driver_flags(clang) + ["-fgpu-rdc"])
    elif code.embed:
        embedded = [code.embed]
        args.add_all(["-Xclang", "-fcuda-include-gpubinary", "-Xclang", code.embed])
    args.add("-o", out)
    args.add(src)
    return struct(
        args = args,
        inputs = depset(embedded, transitive = [inputs]),
        outputs = [out],
        mapping = mapping,
        what = src.short_path,
    )

def emit_host_compile(ctx, clang, src, kind, targets, code, out, cuid, source_kwargs):
    """Compiles the host half of one source: host_compile_command as an action.

    Returns:
      The output File.
    """
    command = host_compile_command(ctx, clang, src, kind, targets, code, out, cuid, source_kwargs)
    run_command(ctx, clang, command, MNEMONICS.host_compile, "Compiling host half of")
    return out
