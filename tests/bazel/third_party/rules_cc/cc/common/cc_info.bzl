"""rules_cc's CcInfo, as Bazel 4.2's builtin (offline stand-in)."""

load("//cc/private:builtins.bzl", "CC_INFO")

CcInfo = CC_INFO
