"""offload_llvm: an LLVM installation as declared files (OffloadLlvmInfo)."""

load("//rules/private:providers.bzl", "OffloadLlvmInfo")

def _device_runtime_key(basename):
    """libomptarget-nvptx-sm_90.bc -> "nvptx-sm_90"."""
    return basename[len("libomptarget-"):-len(".bc")]

def _device_library_key(f):
    """lib/nvptx64-nvidia-cuda/libompdevice.a -> "nvptx64-nvidia-cuda/libompdevice.a"."""
    return f.dirname.rpartition("/")[2] + "/" + f.basename

def _device_layout(ctx):
    """Which layout the OpenMP device runtime has (kinds/openmp_device_runtime.bzl), "" for none.

    Per-processor files in an LLVM with clang-nvlink-wrapper (LLVM 19, the
    last release of those files; the wrapper came with it) are linked again
    at the NVPTX device link, through that wrapper's LTO; LLVM 16 has no
    such wrapper, and its compiles need none.
    """
    if ctx.files.openmp_device_libraries:
        return "per-triple"
    if ctx.files.openmp_device_runtime:
        if [f for f in ctx.files.tools if f.basename == "clang-nvlink-wrapper"]:
            return "per-processor-lto"
        return "per-processor"
    return ""

def _library_path(ctx):
    """The execroot-relative directory of libs, when the programs need it as LD_LIBRARY_PATH."""
    if not ctx.attr.library_path or not ctx.files.libs:
        return ""
    dirs = {f.dirname: True for f in ctx.files.libs}
    if len(dirs) != 1:
        fail("offload_llvm %s: library_path needs libs in one directory, not %s" % (ctx.label, ", ".join(sorted(dirs))))
    return dirs.keys()[0]

def _offload_llvm_impl(ctx):
    files = depset(
        [ctx.file.clang] + ctx.files.tools + ctx.files.libs + ctx.files.resource_dir +
        ([ctx.file.lld] if ctx.file.lld else []),
    )
    return [
        # As data (a test that runs the SDK itself), the same files at run time.
        DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files)),
        OffloadLlvmInfo(
            clang = ctx.file.clang,
            lld = ctx.file.lld,
            files = files,
            library_path = _library_path(ctx),
            version = ctx.attr.version,
            major = int(ctx.attr.version.split(".")[0]) if ctx.attr.version[:1].isdigit() else 0,
            predefines_wavefront_size = ctx.attr.predefines_wavefront_size,
            hip_declares_rcp_f16 = ctx.attr.hip_declares_rcp_f16,
            openmp_runtime = ctx.files.openmp_runtime,
            openmp_device_runtime = {_device_runtime_key(f.basename): f for f in ctx.files.openmp_device_runtime},
            openmp_device_libraries = {_device_library_key(f): f for f in ctx.files.openmp_device_libraries},
            openmp_device_layout = _device_layout(ctx),
            target_triple = ctx.attr.target_triple,
        ),
    ]

offload_llvm = rule(
    implementation = _offload_llvm_impl,
    doc = """An LLVM installation: clang and every file it reads.

offload_llvm_repository writes one of these in its BUILD file; give it to
offload_clang_toolchain(llvm = ...). The driver, lld, the other tools clang
runs, the LLVM shared libraries they load and the resource directory become
inputs of every compile, so a different compiler is a different action key.""",
    attrs = {
        "clang": attr.label(
            doc = "The clang driver (bin/clang of the installation).",
            mandatory = True,
            allow_single_file = True,
        ),
        "lld": attr.label(
            doc = "lld, which clang runs to link AMDGPU code objects.",
            allow_single_file = True,
        ),
        "tools": attr.label_list(
            doc = "Other programs clang runs (ld.lld, clang-linker-wrapper, ...).",
            allow_files = True,
        ),
        "libs": attr.label_list(
            doc = "The LLVM shared libraries the programs load (libLLVM, libclang-cpp).",
            allow_files = True,
        ),
        "library_path": attr.bool(
            doc = "Whether the programs find libs only through LD_LIBRARY_PATH (they have no RUNPATH " +
                  "of $ORIGIN/../lib, as Debian's own LLVM packages): actions that run them then get " +
                  "it set to the libs' directory.",
        ),
        "resource_dir": attr.label_list(
            doc = "The files of clang's resource directory (lib/clang/N).",
            allow_files = True,
        ),
        "version": attr.string(
            doc = "clang's version, as `clang --version` prints it (\"22.1.8\").",
            mandatory = True,
        ),
        "openmp_runtime": attr.label_list(
            doc = "The OpenMP offload runtime: libomp, libomptarget and its host-CPU plugins " +
                  "(named by soname, as programs load them). Empty when not installed.",
            allow_files = True,
        ),
        "openmp_device_runtime": attr.label_list(
            doc = "The OpenMP device runtime of GPUs: libomptarget-nvptx-sm_XX.bc and " +
                  "libomptarget-amdgpu-gfxXXX.bc, one per processor. Empty when not installed.",
            allow_files = [".bc"],
        ),
        "openmp_device_libraries": attr.label_list(
            doc = "The OpenMP device runtime of GPUs in LLVM 20's layout: lib/<triple>/libompdevice.a " +
                  "(a bitcode archive the device link takes) and lib/<triple>/libomptarget-<family>.bc, " +
                  "for every processor of the triple. Empty when not installed (liboffload-<N>-dev).",
            allow_files = [".a", ".bc"],
        ),
        "target_triple": attr.string(
            doc = "clang's default target triple (`clang -print-target-triple`): the host triple " +
                  "its driver uses, e.g. in bundle entry IDs of host objects.",
        ),
        "hip_declares_rcp_f16": attr.bool(
            default = True,
            doc = "Whether clang's HIP wrapper headers declare __llvm_amdgcn_rcp_f16, which ROCm 5's " +
                  "hip_fp16.h calls (LLVM 16 does; 22 does not).",
        ),
        "predefines_wavefront_size": attr.bool(
            doc = "Whether clang predefines __AMDGCN_WAVEFRONT_SIZE (LLVM 21 and older do).",
        ),
    },
)
