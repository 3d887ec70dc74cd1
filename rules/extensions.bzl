"""The `offload` module extension: SDK repositories for MODULE.bazel (Bazel 7+).

    offload = use_extension("@rules_offload//rules:extensions.bzl", "offload")
    offload.rocm(path = "/opt/rocm-6.2.0")          # optional: defaults find the machine's
    offload.llvm(urls = ["https://..."], sha256 = "...", strip_prefix = "...")
    offload.llvm(name = "offload_llvm16", version = "16")   # a second LLVM
    offload.cuda(
        redist_json = "https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json",
        redist_json_sha256 = "...",
    )
    use_repo(offload, "offload_llvm16")

rules_offload registers its clang toolchain over @offload_llvm, @offload_rocm
and @offload_cuda. Without tags they are found on the machine as in WORKSPACE
mode; the root module's tags win over other modules'. Each tag takes the
attributes of the repository rule of the same SDK (path, urls, sha256,
strip_prefix, type; llvm also version; cuda also NVIDIA's redistributable
components: redist_json, redist_json_sha256, redist_components, ... or
components).
"""

load("//rules/sdk:cuda.bzl", "offload_cuda_repository")
load("//rules/sdk:llvm.bzl", "offload_llvm_repository")
load("//rules/sdk:native.bzl", "offload_native_repository")
load("//rules/sdk:redist.bzl", "REDIST_ATTRS")
load("//rules/sdk:rocm.bzl", "offload_rocm_repository")

_ARCHIVE = {
    "path": attr.string(),
    "urls": attr.string_list(),
    "sha256": attr.string(),
    "strip_prefix": attr.string(),
    "type": attr.string(),
}

def _tag(default_name, extra = {}):
    attrs = {"name": attr.string(default = default_name)}
    attrs.update(_ARCHIVE)
    attrs.update(extra)
    return tag_class(attrs = attrs)

_SDKS = {
    "llvm": struct(rule = offload_llvm_repository, default = "offload_llvm", extra = ["version"]),
    "rocm": struct(rule = offload_rocm_repository, default = "offload_rocm", extra = []),
    "cuda": struct(rule = offload_cuda_repository, default = "offload_cuda", extra = sorted(REDIST_ATTRS)),
}

def _kwargs(tag, extra):
    kw = {k: getattr(tag, k) for k in _ARCHIVE}
    for k in extra:
        kw[k] = getattr(tag, k)
    return kw

def _offload_impl(mctx):
    for sdk, spec in _SDKS.items():
        declared = {}

        # Root module first: its tags decide a name that others also use.
        for mod in mctx.modules:
            for tag in getattr(mod.tags, sdk):
                if tag.name not in declared:
                    declared[tag.name] = _kwargs(tag, spec.extra)
        if spec.default not in declared:
            declared[spec.default] = {}
        for name, kw in declared.items():
            spec.rule(name = name, **kw)

    # The machine's GPUs, for targets "native".
    offload_native_repository(name = "offload_native")

offload = module_extension(
    implementation = _offload_impl,
    doc = "LLVM, ROCm and CUDA repositories for rules_offload's toolchains.",
    tag_classes = {
        "llvm": _tag("offload_llvm", {"version": attr.string(default = "22")}),
        "rocm": _tag("offload_rocm"),
        "cuda": _tag("offload_cuda", REDIST_ATTRS),
    },
)
