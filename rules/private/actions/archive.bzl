"""Unbundling a heterogeneous device archive into per-target device archives."""

load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

def emit_unbundle_archive(ctx, tool, archive, bundle_ids, outs, allow_missing = False):
    """Runs `offload bundler -type=a -unbundle` once for all targets.

    Every member of archive whose bundle has an entry compatible with a
    requested ID (target-ID rules: gfx906 code serves gfx906:xnack+) goes
    into that target's archive, as clang-offload-bundler does.

    Args:
      ctx: the rule context.
      tool: OffloadToolInfo.
      archive: File, the heterogeneous archive.
      bundle_ids: list of string, standardized bundle entry IDs.
      outs: list of File, one per ID, in the same order.
      allow_missing: write an empty archive instead of failing when no
        member has code for a target.

    Returns:
      outs.
    """
    args = ctx.actions.args()
    args.add("bundler")
    args.add("-type=a")
    args.add("-unbundle")
    args.add_joined(bundle_ids, join_with = ",", format_joined = "-targets=%s")
    args.add(archive, format = "-input=%s")
    args.add_all(outs, format_each = "-output=%s")
    if allow_missing:
        args.add("-allow-missing-bundles")
    ctx.actions.run(
        executable = tool.files_to_run,
        arguments = [args],
        inputs = [archive],
        outputs = outs,
        mnemonic = MNEMONICS.unbundle_archive,
        progress_message = "Unbundling %s for %d targets (%s)" % (archive.short_path, len(outs), ctx.label),
        execution_requirements = SUPPORTS_PATH_MAPPING,
        **toolchain_kwargs(OFFLOAD_TOOLCHAIN_TYPE)
    )
    return outs
