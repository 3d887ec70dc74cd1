"""The targets build setting: --@rules_offload//rules:targets=gfx906,sm_90."""

load(":providers.bzl", "OffloadTargetsInfo")

def _offload_targets_flag_impl(ctx):
    return [OffloadTargetsInfo(targets = [t for t in ctx.build_setting_value if t])]

offload_targets_flag = rule(
    implementation = _offload_targets_flag_impl,
    doc = "Default offload targets for rules whose targets attribute is empty (comma-separated on the command line).",
    build_setting = config.string_list(flag = True),
)
