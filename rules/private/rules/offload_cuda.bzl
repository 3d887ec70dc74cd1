"""offload_cuda: a CUDA installation as declared files (OffloadCudaInfo)."""

load("//rules/private:common.bzl", "repository_path")
load("//rules/private:providers.bzl", "OffloadCudaInfo")

def _offload_cuda_impl(ctx):
    files = depset(ctx.files.headers + ctx.files.libdevice)
    return [
        # As data (a test that runs the SDK itself), the same files at run time.
        DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files)),
        OffloadCudaInfo(
            found = ctx.attr.found,
            error = ctx.attr.error,
            root = repository_path(ctx.label),
            version = ctx.attr.version,
            archs = ctx.attr.archs,
            files = files,
            ptxas = ctx.file.ptxas,
            fatbinary = ctx.file.fatbinary,
            nvlink = ctx.file.nvlink,
            cudart_static = ctx.files.cudart_static,
            cudart_shared = ctx.files.cudart_shared,
        ),
    ]

offload_cuda = rule(
    implementation = _offload_cuda_impl,
    doc = """A CUDA installation laid out as clang's --cuda-path expects it.

offload_cuda_repository writes one of these in its BUILD file, at the root of
the repository (include, nvvm/libdevice, bin, lib64); give it to
offload_clang_toolchain(cuda = ...).""",
    attrs = {
        "found": attr.bool(default = True, doc = "False: no CUDA; error says why."),
        "error": attr.string(doc = "Why no CUDA was found."),
        "headers": attr.label_list(doc = "CUDA headers (include/...).", allow_files = True),
        "libdevice": attr.label_list(doc = "nvvm/libdevice/libdevice.10.bc.", allow_files = True),
        "ptxas": attr.label(doc = "ptxas.", allow_single_file = True),
        "fatbinary": attr.label(doc = "fatbinary.", allow_single_file = True),
        "nvlink": attr.label(doc = "nvlink.", allow_single_file = True),
        "cudart_static": attr.label_list(doc = "libcudart_static.a.", allow_files = True),
        "cudart_shared": attr.label_list(doc = "libcudart.so*.", allow_files = True),
        "version": attr.string(doc = "CUDA version (\"11.8\")."),
        "archs": attr.string_list(doc = "sm_XX and compute_XX that ptxas builds."),
    },
)
