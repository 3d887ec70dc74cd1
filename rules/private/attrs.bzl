"""Attributes shared by the compiling rules."""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private/kinds:registry.bzl", "KIND_NAMES")
load(":device_code_check.bzl", "device_code_aspect")
load(":native.bzl", "OffloadNativeTargetsInfo")
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
                  "\"x86_64-pc-linux-gnu\" (OpenMP host-CPU device), full bundle entry IDs, or \"native\" " +
                  "(the build machine's GPUs of the kind, found when @offload_native was fetched). " +
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
        "defines": attr.string_list(doc = "Macros for -D, as NAME or NAME=VALUE, for these compiles and dependents' (cc_library's defines)."),
        "local_defines": attr.string_list(doc = "Macros for -D of these compiles only."),
        "includes": attr.string_list(
            doc = "Include directories relative to the package, in the source tree and under bin, " +
                  "as -isystem for these compiles and dependents' (cc_library's includes).",
        ),
        "hdrs": attr.label_list(doc = "Headers the sources and dependents include.", allow_files = True),
        "textual_hdrs": attr.label_list(doc = "Headers included textually (not compiled on their own).", allow_files = True),
        "include_prefix": attr.string(doc = "Prefix of the paths hdrs are included by (cc_library's; _virtual_includes)."),
        "strip_include_prefix": attr.string(doc = "Prefix removed from the paths hdrs are included by (cc_library's)."),
        "deps": attr.label_list(
            doc = "Libraries whose headers, include paths and defines the device code uses, and " +
                  "dependents' too (cc_library's deps).",
            providers = [CcInfo],
            aspects = [device_code_aspect],
        ),
        "implementation_deps": attr.label_list(
            doc = "Libraries these compiles use whose headers dependents do not see (linked as deps).",
            providers = [CcInfo],
            aspects = [device_code_aspect],
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
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
        # The machine's GPUs for targets "native" (rules/sdk/native.bzl).
        "_native_targets": attr.label(
            default = Label("@offload_native//:targets"),
            providers = [OffloadNativeTargetsInfo],
        ),
    }
