"""The SDKs the toolchains compile against: one line per SDK.

Each SDK file (rules/sdk/<sdk>.bzl) defines its repository rule and one
struct describing it; the `offload` module extension (its tags), WORKSPACE's
rules_offload_toolchains() (its default repository) and
offload_clang_toolchain (its attribute, and the flags and files it adds to
one offload kind's compiles) are built from this list, never naming an SDK.
Fields:

  name:               the tag (offload.<name>(...)) and the attribute of
                      offload_clang_toolchain (<name> = "@offload_<name>//:<name>").
  repository_rule:    the repository rule (offload_<name>_repository).
  default_repository: the repository both entry points declare when the
                      user did not ("offload_<name>").
  tag_attrs:          the tag's attributes beyond name, path, urls, sha256,
                      strip_prefix and type (the repository rule's own).
  workspace_attrs:    function(offload) -> more attributes of the default
                      repository in WORKSPACE mode (offload: the label
                      rules_offload_toolchains() was given, or None).
  toolchain:          None where offload_clang_toolchain has no attribute
                      for it (LLVM, its llvm attribute being the compiler
                      itself), else struct(
                        provider: what the attribute's target provides
                          (it must have fields found, error and files);
                        kind: the offload kind whose compiles it serves;
                        doc: the attribute's doc;
                        contribution: function(info, llvm, version) ->
                          struct(copts, files, ptxas) of that kind's
                          compiles; llvm: OffloadLlvmInfo or None,
                          version: clang's; ptxas: a path or None).

A new SDK is an SDK file and a line here.
"""

load(":cuda.bzl", "CUDA_SDK")
load(":llvm.bzl", "LLVM_SDK")
load(":rocm.bzl", "ROCM_SDK")

# In the order the extension and rules_offload_toolchains() declare them.
SDKS = [LLVM_SDK, ROCM_SDK, CUDA_SDK]
