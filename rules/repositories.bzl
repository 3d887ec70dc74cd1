"""WORKSPACE setup of rules_offload (Bazel 7+ users: MODULE.bazel and extensions.bzl instead).

    load("@rules_offload//rules:repositories.bzl", "rules_offload_dependencies", "rules_offload_toolchains")

    rules_offload_dependencies()

    rules_offload_toolchains()

rules_offload_toolchains() declares @offload_llvm, @offload_rocm and
@offload_cuda from this machine (clang-22 on PATH, $ROCM_PATH or /opt/rocm or
/usr, $CUDA_PATH or /usr/local/cuda or /usr/lib/cuda) unless the WORKSPACE
declared them first, e.g. from archives:

    offload_llvm_repository(name = "offload_llvm", urls = [...], sha256 = "...", strip_prefix = "...")

and registers the clang toolchain over them and the offload tool's toolchain.
"""

load("//rules/sdk:bazel4.bzl", _bazel4_offline_repositories = "bazel4_offline_repositories", _rules_cc_compat = "rules_cc_compat")
load("//rules/sdk:cuda.bzl", _offload_cuda_repository = "offload_cuda_repository")
load("//rules/sdk:llvm.bzl", _offload_llvm_repository = "offload_llvm_repository")
load("//rules/sdk:native.bzl", _offload_native_repository = "offload_native_repository")
load("//rules/sdk:registry.bzl", "SDKS")
load("//rules/sdk:rocm.bzl", _offload_rocm_repository = "offload_rocm_repository")
load("//rules/sdk:tool.bzl", _offload_tool_repository = "offload_tool_repository")

offload_llvm_repository = _offload_llvm_repository
offload_native_repository = _offload_native_repository
offload_rocm_repository = _offload_rocm_repository
offload_cuda_repository = _offload_cuda_repository
offload_tool_repository = _offload_tool_repository
bazel4_offline_repositories = _bazel4_offline_repositories

def _declared(name):
    return name in native.existing_rules()

def rules_offload_dependencies():
    """Repositories the rules load from: rules_cc (a stand-in over Bazel's builtins unless declared)."""
    if not _declared("rules_cc"):
        _rules_cc_compat(name = "rules_cc")

def rules_offload_toolchains(offload = None, register = True):  # buildifier: disable=unnamed-macro
    """Declares the SDK repositories not yet declared and registers the toolchains.

    Args:
      offload: a label of a prebuilt offload binary; default: built from
        this repository's sources with the machine's Go.
      register: False to only declare the repositories (register the
        toolchains of @rules_offload//rules/toolchains yourself).
    """
    for sdk in SDKS:
        if not _declared(sdk.default_repository):
            sdk.repository_rule(name = sdk.default_repository, **sdk.workspace_attrs(offload))
    if not _declared("offload_native"):
        offload_native_repository(name = "offload_native")
    if not _declared("offload_tool"):
        offload_tool_repository(name = "offload_tool", binary = offload or "")
    if register:
        native.register_toolchains(
            "@offload_tool//:toolchain",
            str(Label("//rules/toolchains:clang")),
        )
