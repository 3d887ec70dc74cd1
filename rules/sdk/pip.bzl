"""CUDA from NVIDIA's pip wheels, merged into one toolkit tree.

PyTorch's and JAX's users get CUDA from pip. The wheels install under a
site-packages directory's nvidia/, in one of two layouts:

  CUDA 12: one directory per component, each with its own bin/, include/,
           lib/ and nvvm/: nvidia/cuda_runtime, nvidia/cuda_nvcc,
           nvidia/cublas, nvidia/cuda_cccl, ... (packages nvidia-*-cu12);
  CUDA 13: every component in nvidia/cu13/{bin,include,lib,nvvm}
           (packages nvidia-cuda-runtime, nvidia-cublas, ...).

Either way the repository links every file of the components it knows into
one tree (symbolic links, so Bazel digests the wheel's files), which is then
read as a toolkit installation. The wheels have shared libraries only, under
their sonames (lib/libcublas.so.12, no libcublas.so link) and no static
archives.
"""

load(":common.bzl", "exists", "list_dir", "realpath")

PIP_ATTRS = {
    "site_packages": attr.string(
        doc = "A Python site-packages directory holding NVIDIA's CUDA wheels (nvidia/cu13/... for " +
              "CUDA 13; nvidia/cuda_runtime, nvidia/cublas, ... for CUDA 12), e.g. " +
              "/opt/venv/lib/python3.12/site-packages. With it, CUDA comes from the wheels.",
    ),
}

# The toolkit's components as the CUDA 12 wheels name their directories
# under nvidia/, and CUDA 13's one directory. Other wheels there (cuDNN,
# NCCL, NVSHMEM) are not CUDA's and stay out of the tree.
_COMPONENT_DIRS = [
    "cu13",
    "cuda_runtime",
    "cuda_nvcc",
    "cuda_cccl",
    "cuda_nvrtc",
    "cublas",
    "cufft",
    "curand",
    "cusparse",
    "cusolver",
    "nvjitlink",
]

# Where a redistributable component's files come from in each layout: the
# package to install (CUDA 12's names end in -cu12).
_PACKAGES = {
    "cuda_cccl": "nvidia-cuda-cccl",
    "cuda_cudart": "nvidia-cuda-runtime",
    "cuda_nvcc": "nvidia-cuda-nvcc",
    "cuda_nvrtc": "nvidia-cuda-nvrtc",
    "libcublas": "nvidia-cublas",
    "libcufft": "nvidia-cufft",
    "libcurand": "nvidia-curand",
    "libcusolver": "nvidia-cusolver",
    "libcusparse": "nvidia-cusparse",
    "libnvjitlink": "nvidia-nvjitlink",
}

def wants_pip(rctx):
    return bool(rctx.attr.site_packages)

def pip_package(component, major):
    """The pip package that holds an NVIDIA component for a CUDA major version.

    Args:
      component: NVIDIA's component name ("libcublas").
      major: "12" or "13".

    Returns:
      string, or None for a component with no wheel.
    """
    name = _PACKAGES.get(component)
    if not name:
        return None
    return name + "-cu12" if major == "12" else name

def pip_tree(rctx):
    """Links the wheels' files into one tree.

    Args:
      rctx: repository_ctx with PIP_ATTRS.

    Returns:
      (path string, description string, major string): the merged tree, what
      it came from, and "13" for the cu13 layout or "12" for the per-component one.
    """
    if rctx.attr.urls or rctx.attr.path or rctx.attr.redist_json or rctx.attr.components:
        fail("CUDA repository %s: give one of site_packages (pip wheels), path, urls and NVIDIA's components" % rctx.name)
    nvidia = rctx.attr.site_packages.rstrip("/") + "/nvidia"
    if not exists(rctx, nvidia):
        fail(("CUDA repository %s: site_packages %s has no nvidia/ directory; install the wheels there " +
              "(pip install nvidia-cuda-runtime nvidia-cuda-nvcc nvidia-cuda-cccl for CUDA 13, " +
              "nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12 for CUDA 12)") % (
            rctx.name,
            rctx.attr.site_packages,
        ))
    present = [d for d in _COMPONENT_DIRS if exists(rctx, nvidia + "/" + d)]
    if not present:
        fail("CUDA repository %s: %s holds none of CUDA's wheels (%s); it has %s" % (
            rctx.name,
            nvidia,
            ", ".join(_COMPONENT_DIRS),
            ", ".join(list_dir(rctx, nvidia)) or "nothing",
        ))
    tree = str(rctx.path("_pip/tree"))
    rctx.execute(["mkdir", "-p", tree])

    # In _COMPONENT_DIRS order, a later wheel's file replacing an earlier
    # one's: the same tree whatever order the directory lists them in.
    for d in present:
        res = rctx.execute(["cp", "-R", "-s", "-f", realpath(rctx, nvidia + "/" + d) + "/.", tree])
        if res.return_code != 0:
            fail("CUDA repository %s: linking %s/%s: %s" % (rctx.name, nvidia, d, res.stderr))
    major = "13" if "cu13" in present else "12"
    return tree, "pip wheels (%s: %s)" % (nvidia, ", ".join(present)), major
