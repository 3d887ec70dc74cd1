"""rules_cc's cc_common, as Bazel 4.2's builtin (offline stand-in)."""

load("//cc/private:builtins.bzl", "CC_COMMON")

cc_common = CC_COMMON
