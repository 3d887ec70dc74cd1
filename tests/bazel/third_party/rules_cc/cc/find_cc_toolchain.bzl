"""rules_cc's C++ toolchain helpers for Bazel 4.2 (offline stand-in)."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

CC_TOOLCHAIN_TYPE = "@bazel_tools//tools/cpp:toolchain_type"

def find_cc_toolchain(ctx):
    """The current CcToolchainInfo (the rule needs a _cc_toolchain attribute).

    Args:
      ctx: the rule context.

    Returns:
      CcToolchainInfo.
    """
    return find_cpp_toolchain(ctx)

def use_cc_toolchain(mandatory = False):  # buildifier: disable=unused-variable
    """The toolchains entry for the C++ toolchain type (always mandatory on 4.2).

    Args:
      mandatory: ignored; Bazel 4.2 has no optional toolchains.

    Returns:
      A list for rule(toolchains = ...).
    """
    return [CC_TOOLCHAIN_TYPE]
