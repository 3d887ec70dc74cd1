"""Repositories a WORKSPACE needs that Bazel would otherwise download or lack.

rules_cc_compat: the rules load CcInfo, cc_common and find_cc_toolchain from
@rules_cc at rules_cc 0.1's paths; Bazel before 7 has only an old rules_cc
(and downloads it). This repository gives those names the builtins.

bazel4_offline_repositories: stand-ins for what Bazel 4.2's default
WORKSPACE suffix downloads (rules_java, remote_coverage_tools), for offline
machines such as Debian's bazel-bootstrap. Only `bazel coverage` and Java
rules need the real ones.
"""

_CC_DEFS = '''"""rules_cc's rules as Bazel's native ones (rules_offload's stand-in)."""

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)  # buildifier: disable=native-cc-binary

def cc_library(**kwargs):
    native.cc_library(**kwargs)  # buildifier: disable=native-cc-library

def cc_test(**kwargs):
    native.cc_test(**kwargs)  # buildifier: disable=native-cc-test

def cc_import(**kwargs):
    native.cc_import(**kwargs)  # buildifier: disable=native-cc-import

def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)  # buildifier: disable=native-cc-proto

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)  # buildifier: disable=native-cc-toolchain

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)  # buildifier: disable=native-cc-toolchain-suite

def objc_library(**kwargs):
    native.objc_library(**kwargs)  # buildifier: disable=native-cc-objc-library

def objc_import(**kwargs):
    native.objc_import(**kwargs)  # buildifier: disable=native-cc-objc-import
'''

_CC_BUILTINS = '''"""The C++ builtins, under names the re-exporting files can bind."""

CC_INFO = CcInfo  # buildifier: disable=native-cc-info
CC_COMMON = cc_common  # buildifier: disable=native-cc-common
'''

_CC_FIND_TOOLCHAIN = '''"""rules_cc's C++ toolchain helpers over Bazel's builtin ones."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

CC_TOOLCHAIN_TYPE = "@bazel_tools//tools/cpp:toolchain_type"

def find_cc_toolchain(ctx):
    return find_cpp_toolchain(ctx)

def use_cc_toolchain(mandatory = False):  # buildifier: disable=unused-variable
    return [CC_TOOLCHAIN_TYPE]
'''

def _rules_cc_compat_impl(rctx):
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", "")
    rctx.file("cc/BUILD.bazel", "")
    rctx.file("cc/defs.bzl", _CC_DEFS)
    rctx.file("cc/find_cc_toolchain.bzl", _CC_FIND_TOOLCHAIN)
    rctx.file("cc/private/BUILD.bazel", "")
    rctx.file("cc/private/builtins.bzl", _CC_BUILTINS)
    rctx.file("cc/common/BUILD.bazel", "")
    rctx.file("cc/common/cc_info.bzl", 'load("//cc/private:builtins.bzl", "CC_INFO")\n\nCcInfo = CC_INFO\n')
    rctx.file("cc/common/cc_common.bzl", 'load("//cc/private:builtins.bzl", "CC_COMMON")\n\ncc_common = CC_COMMON\n')

rules_cc_compat = repository_rule(
    implementation = _rules_cc_compat_impl,
    doc = "rules_cc's load paths over Bazel's builtin C++ rules, for Bazel 4.2 to 6 in WORKSPACE mode.",
)

_JAVA_RULES = [
    "java_binary",
    "java_import",
    "java_library",
    "java_plugin",
    "java_test",
    "java_proto_library",
    "java_lite_proto_library",
    "java_runtime",
    "java_toolchain",
    "java_package_configuration",
]

def _rules_java_stub_impl(rctx):
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", "")
    rctx.file("java/BUILD.bazel", "")
    rctx.file("java/defs.bzl", "\n".join([
        "def %s(**kwargs):\n    native.%s(**kwargs)\n" % (r, r)
        for r in _JAVA_RULES
    ]))

_rules_java_stub = repository_rule(implementation = _rules_java_stub_impl)

def _coverage_stub_impl(rctx):
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("stub.sh", "#!/bin/sh\necho 'coverage tools are not available offline' >&2\nexit 1\n", executable = True)
    rctx.file("BUILD.bazel", """package(default_visibility = ["//visibility:public"])

sh_binary(name = "coverage_report_generator", srcs = ["stub.sh"])

sh_binary(name = "lcov_merger", srcs = ["stub.sh"])
""")

_coverage_stub = repository_rule(implementation = _coverage_stub_impl)

def bazel4_offline_repositories():
    """Stand-ins for the repositories Bazel 4.2 downloads by default (call first in WORKSPACE)."""
    if "rules_java" not in native.existing_rules():
        _rules_java_stub(name = "rules_java")
    if "remote_coverage_tools" not in native.existing_rules():
        _coverage_stub(name = "remote_coverage_tools")
