"""The host half of a HIP, CUDA or OpenMP source: one compile per source."""

load("//rules/private:common.bzl", "MNEMONICS")
load("//rules/private/kinds:common.bzl", "new_driver_flags")
load(":compile.bzl", "add_source_flags", "run_command")

def host_compile_command(ctx, clang, src, kind, targets, device_code, out, cuid, source_kwargs):
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
      device_code: how the device half reaches the program: a File, the
        NVIDIA fat binary to embed (CUDA); "separate" (HIP whole-program: the
        fat binary's own object); "rdc" (relocatable device code); None
        (OpenMP).
      out: File, the host object to write.
      cuid: string, the compilation unit ID (HIP and CUDA).
      source_kwargs: dict: copts, headers (as for emit_device_compile).

    Returns:
      struct(args, inputs, outputs, mapping, what) for run_command.
    """
    args = ctx.actions.args()
    args.add_all(kind.host.flags([] if device_code == "separate" else targets, cuid))

    # Host objects may go into shared libraries (cc_test links dynamically).
    args.add("-fPIC")
    inputs, mapping = add_source_flags(
        args,
        clang,
        kind,
        kind.host.wavefront,
        src,
        out,
        **source_kwargs
    )
    embedded = []
    if device_code == "rdc":
        # Relocatable device code: the object gets offload entries
        # (section llvm_offload_entries) that the link's registration reads.
        args.add_all(new_driver_flags(clang) + ["-fgpu-rdc"])
    elif device_code and device_code != "separate":
        embedded = [device_code]
        args.add_all(["-Xclang", "-fcuda-include-gpubinary", "-Xclang", device_code])
    args.add("-o", out)
    args.add(src)
    return struct(
        args = args,
        inputs = depset(embedded, transitive = [inputs]),
        outputs = [out],
        mapping = mapping,
        what = src.short_path,
    )

def emit_host_compile(ctx, clang, src, kind, targets, device_code, out, cuid, source_kwargs):
    """Compiles the host half of one source: host_compile_command as an action.

    Returns:
      The output File.
    """
    command = host_compile_command(ctx, clang, src, kind, targets, device_code, out, cuid, source_kwargs)
    run_command(ctx, clang, command, MNEMONICS.host_compile, "Compiling host half of")
    return out
