"""Attributes shared by the compiling rules."""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private/kinds:registry.bzl", "KIND_NAMES")
load(":providers.bzl", "OffloadClangInfo")

def compile_attrs(default_type):
    """Attributes of offload_bundle and offload_package."""
    return {
        "srcs": attr.label_list(
            doc = "Device sources (.hip, .cu, .c, .cpp). Each is compiled once per target.",
            allow_files = True,
        ),
        "targets": attr.string_list(
            doc = "Offload targets: \"gfx906\", \"gfx90a:xnack+\", \"sm_90\", \"compute_90\", " +
                  "\"x86_64-pc-linux-gnu\" (OpenMP host-CPU device) or full bundle entry IDs. " +
                  "Validated at analysis time. Empty: the --@rules_offload//rules:targets flag.",
        ),
        "kind": attr.string(
            doc = "Offload kind: \"hip\", \"cuda\" or \"openmp\".",
            mandatory = True,
            values = KIND_NAMES,
        ),
        "type": attr.string(
            doc = "What each device image is, in clang-offload-bundler -type terms: \"o\" " +
                  "(HIP code object, CUDA cubin, OpenMP device code), \"bc\", \"ll\", \"s\" " +
                  "(PTX for NVIDIA), \"i\", \"ii\", \"cui\", \"hipi\".",
            default = default_type,
            values = ["o", "bc", "ll", "s", "i", "ii", "cui", "hipi"],
        ),
        "copts": attr.string_list(doc = "Extra clang flags for every device compile."),
        "defines": attr.string_list(doc = "Macros for -D, as NAME or NAME=VALUE."),
        "includes": attr.string_list(doc = "Include directories relative to the package (-I)."),
        "hdrs": attr.label_list(doc = "Headers the sources include.", allow_files = True),
        "deps": attr.label_list(
            doc = "Libraries whose headers, include paths and defines the device code uses.",
            providers = [CcInfo],
        ),
        "compiler": attr.label(
            doc = "A target providing OffloadClangInfo (an offload_clang_toolchain) that overrides " +
                  "the resolved clang toolchain for this target only, e.g. to pin clang-16 for an " +
                  "OpenMP runtime of that version.",
            providers = [OffloadClangInfo],
            cfg = "exec",
        ),
        "cuid": attr.string(
            doc = "HIP/CUDA compilation unit ID (clang -cuid) of the single source, for host code " +
                  "compiled elsewhere that must match it. Default: derived from the label and the " +
                  "source path, the same on every machine.",
        ),
        "_targets_flag": attr.label(default = Label("//rules:targets")),
    }
