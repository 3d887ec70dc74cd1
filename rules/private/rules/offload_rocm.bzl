"""offload_rocm: a ROCm installation as declared files (OffloadRocmInfo)."""

load("//rules/private:common.bzl", "repository_path")
load("//rules/private:providers.bzl", "OffloadRocmInfo")

def _offload_rocm_impl(ctx):
    files = depset(ctx.files.headers + ctx.files.device_libs + ctx.files.version_file + ctx.files.fp16_compat_header)
    return [
        # As data (a test that runs the SDK itself), the same files at run time.
        DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files)),
        OffloadRocmInfo(
            found = ctx.attr.found,
            error = ctx.attr.error,
            root = repository_path(ctx.label),
            version = ctx.attr.version,
            processors = ctx.attr.processors,
            code_object_version = ctx.attr.code_object_version,
            wavefront_macro = ctx.attr.wavefront_macro,
            fp16_compat_header = ctx.file.fp16_compat_header,
            files = files,
            runtime = ctx.files.runtime,
            hip_bitcode = ([f for f in ctx.files.device_libs if f.basename == "hip.bc"] or [None])[0],
        ),
    ]

offload_rocm = rule(
    implementation = _offload_rocm_impl,
    doc = """A ROCm installation laid out as clang's --rocm-path expects it.

offload_rocm_repository writes one of these in its BUILD file, at the root of
the repository (include/hip, amdgcn/bitcode, share/hip/version, lib); give it
to offload_clang_toolchain(rocm = ...).""",
    attrs = {
        "found": attr.bool(default = True, doc = "False: no ROCm; error says why."),
        "error": attr.string(doc = "Why no ROCm was found."),
        "headers": attr.label_list(doc = "HIP headers (include/hip/...).", allow_files = True),
        "device_libs": attr.label_list(doc = "Device-library bitcode (amdgcn/bitcode/*.bc).", allow_files = True),
        "version_file": attr.label_list(doc = "share/hip/version, which clang reads.", allow_files = True),
        "runtime": attr.label_list(doc = "libamdhip64 for linking.", allow_files = True),
        "version": attr.string(doc = "The HIP version of the headers."),
        "processors": attr.string_list(doc = "Processors with device libraries."),
        "code_object_version": attr.int(doc = "Highest code object version of the device libraries (0: any)."),
        "wavefront_macro": attr.bool(doc = "Whether the headers read __AMDGCN_WAVEFRONT_SIZE."),
        "fp16_compat_header": attr.label(
            doc = "A header declaring what the HIP headers' hip_fp16.h expects clang's HIP wrapper to " +
                  "declare (ROCm 5: __llvm_amdgcn_rcp_f16); the toolchain force-includes it where clang does not.",
            allow_single_file = True,
        ),
    },
)
