"""The containers a runtime loads device images from, by the name a kind gives.

A kind names its containers (kinds/*.bzl: fat_binary,
device_link_container); the rules take the extension and the emitter from
here. Every emitter is emit(ctx, tool, images, out) -> out; a container
that can go in an object of its own, which the host object refers to
(a kind's fat_binary_object), has
object(ctx, tool, container_file, cuid, host_triple, out) -> out, else None.
"""

load(":bundle.bzl", "emit_hip_fatbin", "emit_linked_hip_fatbin")
load(":fatbinary.bzl", "emit_fatbinary")
load(":hip_fatbin_object.bzl", "emit_hip_fatbin_object")
load(":package.bzl", "emit_package")

CONTAINERS = {
    # A HIP fat binary: clang-offload-bundler's format (offload bundler).
    "hip_fatbin": struct(ext = ".hipfb", emit = emit_hip_fatbin, object = emit_hip_fatbin_object),
    # A HIP fat binary of linked code objects, as clang's new driver writes
    # it (a kind's host.whole_program_link names it); its emit also takes
    # the host triple: emit(ctx, tool, images, out, host_triple).
    "hip_fatbin_linked": struct(ext = ".hipfb", emit = emit_linked_hip_fatbin, object = emit_hip_fatbin_object),
    # An NVIDIA fat binary (offload fatbin).
    "fatbinary": struct(ext = ".fatbin", emit = emit_fatbinary, object = None),
    # An OffloadBinary (offload packager).
    "package": struct(ext = ".offloadbin", emit = emit_package, object = None),
}
