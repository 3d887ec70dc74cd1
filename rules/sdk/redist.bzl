"""NVIDIA's redistributable CUDA components, extracted into one toolkit tree.

NVIDIA publishes CUDA as one archive per component (cuda_nvcc, cuda_cudart,
libcurand, ...), each holding a single directory named like the archive
(cuda_nvcc-linux-x86_64-11.8.89-archive/{bin,include,nvvm,...}), and lists
them with their SHA-256 in a manifest, redistrib_<version>.json:

    {"cuda_nvcc": {"version": "11.8.89", "linux-x86_64": {
        "relative_path": "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-11.8.89-archive.tar.xz",
        "sha256": "..."}}, ...}

Either form is accepted: the manifest (its URL and SHA-256, and which
components) or the archives themselves (URL -> SHA-256). Every archive is
checked against its SHA-256 before it is extracted.
"""

# What clang's CUDA compiles and links read: nvcc's component has ptxas,
# fatbinary, nvlink, libdevice and the crt/ headers; cudart the runtime's
# headers and libraries; libcurand curand_mtgp32_kernel.h, which clang's
# CUDA wrapper header includes; cccl libcu++'s headers, which CUDA 12's
# runtime headers include.
DEFAULT_COMPONENTS = ["cuda_cccl", "cuda_cudart", "cuda_nvcc", "libcurand"]

# CUDA 13 split cuda_nvcc: the crt/ headers went to cuda_crt and nvvm/
# (libdevice) to libnvvm (pip: nvidia-cuda-crt, nvidia-nvvm). Asking for
# cuda_nvcc fetches them too where the manifest lists them, so one list of
# components serves 12.x and 13.x manifests.
_NVCC_PARTS = ["cuda_crt", "libnvvm"]

REDIST_ATTRS = {
    "redist_json": attr.string(
        doc = "URL of NVIDIA's redistrib_<version>.json (e.g. https://developer.download.nvidia.com/" +
              "compute/cuda/redist/redistrib_11.8.0.json). The components' relative_path values are " +
              "resolved against its directory, or against redist_base_url.",
    ),
    "redist_json_sha256": attr.string(doc = "The manifest's SHA-256; required with redist_json."),
    "redist_base_url": attr.string(doc = "Where the manifest's relative paths start; default: the manifest's directory."),
    "redist_components": attr.string_list(
        default = DEFAULT_COMPONENTS,
        doc = "The manifest's components to fetch. With cuda_nvcc, CUDA 13's cuda_crt and libnvvm " +
              "(what cuda_nvcc held before 13) come too when the manifest lists them.",
    ),
    "redist_platform": attr.string(default = "linux-x86_64", doc = "The manifest's platform key."),
    "components": attr.string_dict(
        doc = "Component archives without a manifest: URL -> SHA-256. Each archive holds one " +
              "directory named like the archive file, as NVIDIA's do.",
    ),
}

_EXTENSIONS = [".tar.xz", ".tar.gz", ".tgz", ".tar.bz2", ".tar.zst", ".tar", ".zip"]

def wants_redist(rctx):
    return bool(rctx.attr.redist_json or rctx.attr.components)

def _archive_dir(url):
    """The directory an NVIDIA component archive holds: its file name without the extension."""
    base = url.rsplit("/", 1)[-1]
    for ext in _EXTENSIONS:
        if base.endswith(ext):
            return base[:-len(ext)]
    fail("CUDA component %s: not an archive this rule knows (%s)" % (url, ", ".join(_EXTENSIONS)))

def _from_manifest(rctx):
    """{url: sha256} of the requested components, read from the manifest."""
    if not rctx.attr.redist_json_sha256:
        fail("CUDA repository %s: redist_json needs redist_json_sha256 (the manifest's SHA-256)" % rctx.name)
    rctx.download(url = rctx.attr.redist_json, output = "_redist/redistrib.json", sha256 = rctx.attr.redist_json_sha256)
    manifest = json.decode(rctx.read("_redist/redistrib.json"))
    base = rctx.attr.redist_base_url or rctx.attr.redist_json.rsplit("/", 1)[0]
    archives = {}
    names = list(rctx.attr.redist_components)
    if "cuda_nvcc" in names:
        names += [p for p in _NVCC_PARTS if type(manifest.get(p)) == "dict" and p not in names]
    for name in names:
        entry = manifest.get(name)
        if type(entry) != "dict":
            fail("CUDA repository %s: %s lists no component %s; it has %s" % (
                rctx.name,
                rctx.attr.redist_json,
                name,
                ", ".join(sorted([k for k, v in manifest.items() if type(v) == "dict"])),
            ))
        files = entry.get(rctx.attr.redist_platform)
        if type(files) != "dict" or not files.get("relative_path") or not files.get("sha256"):
            fail("CUDA repository %s: component %s of %s has no %s archive" % (
                rctx.name,
                name,
                rctx.attr.redist_json,
                rctx.attr.redist_platform,
            ))
        archives[base.rstrip("/") + "/" + files["relative_path"]] = files["sha256"]
    return archives

def fetch_redist(rctx):
    """Downloads and extracts the components into one tree.

    Args:
      rctx: repository_ctx with REDIST_ATTRS.

    Returns:
      (path string, description string) of the merged tree.
    """
    if rctx.attr.redist_json and rctx.attr.components:
        fail("CUDA repository %s: give redist_json or components, not both" % rctx.name)
    if rctx.attr.urls:
        fail("CUDA repository %s: give urls (one toolkit archive) or NVIDIA's components, not both" % rctx.name)
    archives = _from_manifest(rctx) if rctx.attr.redist_json else rctx.attr.components

    # Sorted, so that a file two components hold comes from the same one
    # whatever order the attribute gives.
    for url in sorted(archives):
        if not archives[url]:
            fail("CUDA repository %s: component %s has no sha256" % (rctx.name, url))
        rctx.download_and_extract(
            url = url,
            output = "_redist/tree",
            sha256 = archives[url],
            stripPrefix = _archive_dir(url),
        )
    what = rctx.attr.redist_json or "%d component archives" % len(archives)
    return str(rctx.path("_redist/tree")), "NVIDIA redistributables (%s)" % what
