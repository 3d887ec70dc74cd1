"""The offload kinds the rules compile for: one line per kind.

Each kind file returns one offload_kind (contract.bzl: a name, the device
families it takes, and its compile, bundle, host, link and runtime phases,
each from one constructor with defaults); rules and actions take the kind
(KINDS[ctx.attr.kind]) and ask it, never testing the kind's name.

A new kind is a kind file, a line here and an SDK repository (rules/sdk).
"""

load(":cuda.bzl", "CUDA")
load(":hip.bzl", "HIP")
load(":openmp.bzl", "OPENMP")

# In the order error messages and attribute values list them.
_ALL = [HIP, CUDA, OPENMP]

KINDS = {k.name: k for k in _ALL}

# The attributes' values lists.
KIND_NAMES = [k.name for k in _ALL]

# The kinds clang-offload-bundler has an entry kind for: what a
# heterogeneous archive can hold (offload_device_archive).
BUNDLE_KIND_NAMES = [k.name for k in _ALL if k.bundle_kind]

def kinds_for_family(family):
    """The kinds that offload to a device family, as an error message lists them.

    Args:
      family: a family struct (families.bzl).

    Returns:
      string: "\\"hip\\" or \\"openmp\\"".
    """
    return " or ".join(["\"%s\"" % k.name for k in _ALL if family.name in k.families])

def kinds_for_ptx():
    """The kinds that take PTX-only targets, as an error message lists them."""
    return " or ".join(["\"%s\"" % k.name for k in _ALL if k.ptx])
