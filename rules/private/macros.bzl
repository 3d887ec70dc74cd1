"""Macros that give the rules their public attribute shapes."""

load("//rules/private/rules:offload_bundle.bzl", "offload_bundle_rule")
load("//rules/private/rules:offload_library.bzl", "offload_library")
load("//rules/private/rules:offload_package.bzl", "offload_package_rule")

def _invert_images(name, images):
    """{target: label} -> {label: target}: Bazel 4.2 has no string-keyed label dict."""
    out = {}
    for target, label in (images or {}).items():
        if label in out:
            fail("%s: images: %s is given for both %r and %r" % (name, label, out[label], target))
        out[label] = target
    return out

def offload_bundle(name, images = None, **kwargs):
    """Compiles device code per target and bundles it (see offload_bundle_rule).

    Args:
      name: the target name.
      images: prebuilt device images to bundle, {target: label}.
      **kwargs: the attributes of offload_bundle_rule.
    """
    offload_bundle_rule(name = name, images = _invert_images(name, images), **kwargs)

def offload_package(name, images = None, **kwargs):
    """Compiles device code per target and packages it (see offload_package_rule).

    Args:
      name: the target name.
      images: prebuilt device images to package, {target: label}.
      **kwargs: the attributes of offload_package_rule.
    """
    offload_package_rule(name = name, images = _invert_images(name, images), **kwargs)

def hip_library(name, **kwargs):
    """offload_library(kind = "hip"): HIP sources, device and host halves, as CcInfo.

    Args:
      name: the target name.
      **kwargs: the attributes of offload_library.
    """
    offload_library(name = name, kind = "hip", **kwargs)

def cuda_library(name, **kwargs):
    """offload_library(kind = "cuda"): CUDA sources, device and host halves, as CcInfo.

    Args:
      name: the target name.
      **kwargs: the attributes of offload_library.
    """
    offload_library(name = name, kind = "cuda", **kwargs)

def openmp_library(name, **kwargs):
    """offload_library(kind = "openmp"): OpenMP target regions for host-CPU devices, as CcInfo.

    OpenMP device code is linked once per program: put the libraries in an
    offload_device_link's deps.

    Args:
      name: the target name.
      **kwargs: the attributes of offload_library.
    """
    offload_library(name = name, kind = "openmp", **kwargs)
