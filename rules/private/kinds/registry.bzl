"""The offload kinds the rules compile for: one line per kind.

Each kind file returns one struct of that kind's choices; rules and actions
take the struct (KINDS[ctx.attr.kind]) and ask it, never testing the kind's
name. Fields:

  name:                    "hip", "cuda", "openmp": the attribute value, and
                           the key of the toolchain's kind_copts/kind_files.
  families:                names of the device families (families.bzl) whose
                           processors the kind takes.
  ptx:                     whether it takes PTX-only targets (compute_XX).
  bundle_kind, code_object_bundle_kind: the bundle entry ID's offload kind
                           of its images, and of images that are linked code
                           objects; "" where the bundler has none.
  bundle_error:            why offload_bundle refuses the kind, or "".
  bundle_ext:              offload_bundle's default extension of an object
                           bundle without a host object.
  code_objects:            whether its object images are code objects the
                           runtime loads (HIP fat binaries).
  bitcode_copts_error:     function(copts) -> why copts would make bitcode
                           where code objects are expected, or "".
  links_sources:           whether several sources make one image per target
                           (a device link of -fgpu-rdc code).
  link_compile:            (flags, extension) of the compiles that link; None:
                           the family's (families.bzl link_compile).
  gpu_objects_are_bitcode: whether a GPU object compile makes LTO bitcode.
  language_flags:          clang's language flags.
  device_only_flags:       flags of a device-only compile after
                           --offload-device-only.
  cuid:                    whether compiles take a -cuid.
  add_device_flags:        function(args, clang, target, emit_flags, copts):
                           adds the SDK flags of one device compile to args.
  target_list_flags:       function(targets) -> the flags every device
                           compile of a rule adds from the rule's whole
                           target list, as clang's driver derives them from
                           all --offload-arch values (__CUDA_ARCH_LIST__).
  wavefront:               function(target) -> the __AMDGCN_WAVEFRONT_SIZE to
                           define for a device compile, or 0.
  host_wavefront:          the same for the host compile.
  sdk_error:               function(clang, target, flags) -> why the
                           toolchain's SDK cannot build target, or "".
  always_rdc:              whether libraries are always relocatable device
                           code (linked per program).
  rdc_plan:                function(clang, target) -> (struct(flags, ext,
                           image_kind, files) of relocatable device compiles,
                           error); files: list of depset the flags name.
  device_with_host:        whether a source's device compiles run in one
                           action with its host compile.
  fat_binary:              the container (actions/containers.bzl) of a
                           whole-program library's images; "" for none.
  fat_binary_object:       whether that container goes in an object of its
                           own, which the host object refers to.
  host_flags:              function(targets, cuid) -> the flags that make a
                           compile the host half.
  runtime:                 function(clang, runtime) -> (struct(static,
                           dynamic, flags) or None, error): the runtime.
  device_link:             function(clang, target) -> struct(flags, trailing,
                           files) of a relocatable device link that replaces
                           the family's flags (trailing: after the objects),
                           or None for the family's.
  wrap_flags:              function(clang version) -> more flags of its
                           `offload wrap` in offload_device_link.
  recorded_runtime:        basename prefixes of the runtime libraries that
                           offload_registration_test replaces with its
                           recording stand-in (rules/private/registration).
  device_link_container:   the container offload_device_link writes.
  linked_image_kind:       the image kind of a linked image.
  linked_image_ext:        the extension of a linked image's file name
                           (".o" where the OffloadBinary's image kind comes
                           from it, as llvm-offload-binary decides it).
  entry_layout:            function(clang version) -> the offload entry
                           layout of its host objects ("" or "legacy").

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
