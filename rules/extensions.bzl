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
    offload.tool(binary = "@//tools:offload")       # optional: a prebuilt offload

rules_offload registers its clang toolchain over @offload_llvm, @offload_rocm
and @offload_cuda. Without tags they are found on the machine as in WORKSPACE
mode; the root module's tags win over other modules'. Each tag takes the
attributes of the repository rule of the same SDK (path, urls, sha256,
strip_prefix, type; llvm also version; rocm also device_lib_path; cuda also
NVIDIA's redistributable components: redist_json, redist_json_sha256,
redist_components, ... or components; or site_packages, a Python
environment's NVIDIA wheels: offload.cuda(site_packages = "/opt/venv/lib/python3.12/site-packages")).
"""

load("//rules/sdk:native.bzl", "offload_native_repository")
load("//rules/sdk:registry.bzl", "SDKS")
load("//rules/sdk:tool.bzl", "offload_tool_repository")

_ARCHIVE = {
    "path": attr.string(),
    "urls": attr.string_list(),
    "sha256": attr.string(),
    "strip_prefix": attr.string(),
    "type": attr.string(),
}

def _tag(sdk):
    attrs = {"name": attr.string(default = sdk.default_repository)}
    attrs.update(_ARCHIVE)
    attrs.update(sdk.tag_attrs)
    return tag_class(attrs = attrs)

# The offload tool (@offload_tool) is built from this module's sources with
# the machine's Go, as in WORKSPACE mode (rules/sdk/tool.bzl), unless the root
# module's tool tag names a prebuilt binary or another go. rules_go would build
# it hermetically, but its toolchains come with a Go SDK download that every
# toolchain resolution of a user's build would fetch.
_TOOL = tag_class(attrs = {
    "binary": attr.string(doc = "A label of a prebuilt offload binary (default: built from source with Go)."),
    "go": attr.string(doc = "The go command to build the tool with (default: go on PATH, else /usr/local/go/bin/go)."),
})

def _kwargs(tag, extra):
    kw = {k: getattr(tag, k) for k in _ARCHIVE}
    for k in extra:
        kw[k] = getattr(tag, k)
    return kw

def _offload_impl(mctx):
    # The offload tool: the root module's tag, else the first other module's.
    tool = {}
    for mod in mctx.modules:
        for tag in mod.tags.tool:
            if not tool:
                tool = {"binary": tag.binary, "go": tag.go}

    for sdk in SDKS:
        extra = sorted(sdk.tag_attrs)
        declared = {}

        # Root module first: its tags decide a name that others also use.
        for mod in mctx.modules:
            for tag in getattr(mod.tags, sdk.name):
                if tag.name not in declared:
                    declared[tag.name] = _kwargs(tag, extra)
        if sdk.default_repository not in declared:
            declared[sdk.default_repository] = {}
        for name, kw in declared.items():
            # What the SDK's repository takes from rules_offload as in
            # WORKSPACE mode (ROCm: the offload tool, which reads the
            # processors its libraries have code for).
            kw = dict(sdk.workspace_attrs(tool.get("binary") or None), **kw)
            sdk.repository_rule(name = name, **kw)

    # The machine's GPUs, for targets "native".
    offload_native_repository(name = "offload_native")

    offload_tool_repository(name = "offload_tool", **tool)

offload = module_extension(
    implementation = _offload_impl,
    doc = "LLVM, ROCm and CUDA repositories for rules_offload's toolchains.",
    # One tag per SDK of rules/sdk/registry.bzl.
    tag_classes = dict(
        {sdk.name: _tag(sdk) for sdk in SDKS},
        tool = _TOOL,
    ),
)
