"""Providers of rules_offload.

Every provider holds only immutable data (Files, strings, lists of other
providers), so it can go into depsets and be read by any rule.
"""

OffloadImageInfo = provider(
    doc = """One device image: the code compiled (or given) for one target.

Rules do not return this provider on its own; they return lists of it in
OffloadBundleInfo.images and OffloadPackageInfo.images, one per target.""",
    fields = {
        "file": "File: the device image.",
        "target": "string: the canonical target name, as OutputGroupInfo and output paths use it: " +
                  "\"gfx90a:xnack+\", \"sm_90\", \"compute_90\" or, for an OpenMP host-CPU device, a triple.",
        "target_id": "string: the target ID of the bundle entry (processor and sorted features, " +
                     "\"gfx906:sramecc-:xnack+\"); \"\" for a host-CPU triple.",
        "processor": "string: the processor (\"gfx90a\", \"sm_90\"); \"\" for a host-CPU triple.",
        "triple": "string: the device triple clang compiled for, e.g. \"amdgcn-amd-amdhsa\".",
        "bundle_id": "string: the standardized bundle entry ID (\"hipv4-amdgcn-amd-amdhsa--gfx906\"); " +
                     "\"\" for CUDA, which the bundler does not carry.",
        "image_kind": "string: what the file holds: \"object\" (an AMDGPU code object or ELF object), " +
                      "\"bitcode\", \"llvm-ir\", \"ptx\", \"cubin\", \"assembly\" or \"preprocessed\".",
        "offload_kind": "string: \"hip\", \"cuda\" or \"openmp\".",
        "producer": "string: \"compile\" (one source compiled for the target), \"link\" (several " +
                    "sources compiled and device-linked) or \"prebuilt\" (from the images attribute).",
    },
)

OffloadBundleInfo = provider(
    doc = """A clang-offload-bundler bundle made by offload_bundle.

The container depends on type and host: a binary bundle (a HIP fat binary
when type is "o" and there is no host object), an object file with
__CLANG_OFFLOAD_BUNDLE__ sections (type "o" with a host object), or a text
bundle (types "ll", "s", "i", ...). compressed bundles are CCOB-wrapped.""",
    fields = {
        "bundle": "File: the bundle.",
        "type": "string: the bundler -type (\"o\", \"bc\", \"ll\", \"s\", \"i\", ...).",
        "offload_kind": "string: \"hip\" or \"openmp\".",
        "host_bundle_id": "string: the standardized ID of the host entry (\"host-x86_64-unknown-linux-gnu-\").",
        "host": "File or None: the host entry's input; None when the entry is empty.",
        "images": "list of OffloadImageInfo: the device entries, in bundle order (sorted by bundle ID).",
        "align": "int: the -bundle-align used.",
        "compressed": "bool: whether the bundle is compressed (CCOB).",
    },
)

OffloadPackageInfo = provider(
    doc = """An OffloadBinary (llvm-offload-binary, magic 0x10FF10AD) made by offload_package.

This is the new offload driver's container: one image per (source, target),
each with its triple, arch and offload kind.""",
    fields = {
        "package": "File: the OffloadBinary file (concatenated version-1 binaries, one per image).",
        "offload_kind": "string: \"hip\", \"cuda\" or \"openmp\".",
        "images": "list of OffloadImageInfo: the packaged images, in package order.",
        "embedded": "File or None: the host object with the package in .llvm.offloading, when embed was requested.",
    },
)

OffloadDeviceArchiveInfo = provider(
    doc = """A heterogeneous device archive and its per-target device archives (device_archive).

The archive is an ordinary static library whose members are bundled
objects; unbundling it per target gives the device archives a device
linker consumes (what clang-offload-bundler -type=a -unbundle makes).""",
    fields = {
        "archive": "File: the heterogeneous archive (members carry bundles).",
        "bundle_ids": "list of string: the standardized bundle entry IDs extracted, sorted.",
        "per_target": "dict of string to File: target name -> device archive for that target.",
    },
)

OffloadTargetsInfo = provider(
    doc = "The value of the targets build setting (--@rules_offload//rules:targets=gfx906,sm_90).",
    fields = {
        "targets": "list of string: targets as written on the command line.",
    },
)

OffloadLibraryInfo = provider(
    doc = "What an offload_library declares, for offload_registration_test: its kind and targets.",
    fields = {
        "kind": "string: \"hip\", \"cuda\" or \"openmp\".",
        "targets": "list of string: the canonical targets, sorted.",
    },
)

OffloadRdcInfo = provider(
    doc = """Relocatable device code of an offload_library(rdc = True) and its deps.

The device link happens once per binary (offload_device_link), across every
library that reaches it: this provider carries each target's device objects
there (LLVM bitcode for AMDGPU, relocatable cubins for NVIDIA).""",
    fields = {
        "kind": "string: \"hip\" or \"cuda\".",
        "targets": "list of string: the canonical targets, sorted; every library of a link has the same.",
        "objects": "dict of string to depset of File: target -> device objects of this library and its deps.",
    },
)

OffloadClangInfo = provider(
    doc = """A device compiler: clang from an LLVM installation, by label or by absolute path.

Returned by offload_clang_toolchain, both directly (for a rule's compiler
attribute) and inside ToolchainInfo.clang.""",
    fields = {
        "executable": "File or None: clang, when given as a label or from an LLVM installation (hermetic).",
        "path": "string: clang's absolute path when given as a path (the machine's clang), else \"\".",
        "files": "depset of File: everything clang needs as action inputs (executable and data).",
        "env": "dict of string to string: the environment of every action that runs clang: " +
               "LD_LIBRARY_PATH when the LLVM installation's programs need it, else empty.",
        "version": "string: informational version (\"22\").",
        "copts": "list of string: flags for every device compile.",
        "kind_copts": "dict of string to list of string: extra flags per offload kind (hip, cuda, openmp).",
        "link_flags": "list of string: flags for device links.",
        "ptxas": "string: how to make CUDA cubins: \"\" (cannot: cubin targets fail at analysis), " +
                 "or a ptxas path passed as --ptxas-path.",
        "kind_files": "dict of string to depset of File: SDK files a compile of that offload kind reads " +
                      "(ROCm for hip, CUDA with ptxas for cuda).",
        "sdks": "dict of string to provider or None: per SDK of rules/sdk/registry.bzl that the " +
                "toolchain takes (its attribute's name), what its attribute gave.",
        "rocm": "OffloadRocmInfo or None: the ROCm the toolchain compiles HIP against.",
        "cuda": "OffloadCudaInfo or None: the CUDA the toolchain compiles CUDA against.",
        "llvm": "OffloadLlvmInfo or None: the LLVM installation, when clang comes from one.",
        "host_triple": "string: the host triple clang's driver uses (`clang -print-target-triple`), " +
                       "from the LLVM installation or the toolchain's host_triple; \"\" when unknown.",
        "hip_wavefront_define": "bool: define __AMDGCN_WAVEFRONT_SIZE per target (old HIP headers " +
                                "with a clang that no longer predefines it).",
    },
)

OffloadToolInfo = provider(
    doc = "The offload tool, as the offload toolchain carries it (ToolchainInfo.offload).",
    fields = {
        "executable": "File: the offload binary.",
        "files_to_run": "FilesToRunProvider: the binary with its runfiles, for ctx.actions.run.",
    },
)

OffloadLlvmInfo = provider(
    doc = """An LLVM installation as a set of declared files (offload_llvm, made by
offload_llvm_repository). Every file clang reads is here, so the compiler's
bytes are part of every action key that uses it.""",
    fields = {
        "clang": "File: the clang driver.",
        "lld": "File or None: lld, which clang runs to link AMDGPU code objects.",
        "files": "depset of File: the driver, the tools it runs, the shared libraries they load and the resource directory.",
        "library_path": "string: the execroot-relative directory of those shared libraries when the programs " +
                        "find them only through LD_LIBRARY_PATH (no RUNPATH of $ORIGIN/../lib); \"\" otherwise.",
        "version": "string: the full clang version (\"22.1.8\").",
        "major": "int: the major version (22).",
        "predefines_wavefront_size": "bool: whether clang predefines __AMDGCN_WAVEFRONT_SIZE (LLVM 21 and older).",
        "hip_declares_rcp_f16": "bool: whether clang's HIP wrapper headers declare __llvm_amdgcn_rcp_f16 (LLVM 16 does, 22 not).",
        "openmp_runtime": "list of File: libomp, libomptarget and its plugins (host CPUs, CUDA, AMDGPU), named by soname; [] without libomp-<N>-dev.",
        "openmp_device_runtime": "dict of string to File: the OpenMP device runtime of GPUs by family and processor " +
                                 "(\"nvptx-sm_90\": libomptarget-nvptx-sm_90.bc, \"amdgpu-gfx90a\"); {} without libomp-<N>-dev.",
        "openmp_device_libraries": "dict of string to File: the OpenMP device runtime of GPUs in LLVM 20's layout, " +
                                   "by path under lib (\"nvptx64-nvidia-cuda/libompdevice.a\", " +
                                   "\"amdgcn-amd-amdhsa/libomptarget-amdgpu.bc\"); {} without liboffload-<N>-dev.",
        "openmp_device_layout": "string: the layout of the OpenMP device runtime: \"per-processor\" " +
                                "(openmp_device_runtime), \"per-processor-lto\" (openmp_device_runtime in an LLVM " +
                                "with clang-nvlink-wrapper), \"per-triple\" (openmp_device_libraries) or \"\" (none).",
        "target_triple": "string: clang's default target triple (\"x86_64-pc-linux-gnu\"); \"\" when unknown.",
    },
)

OffloadRocmInfo = provider(
    doc = """A ROCm installation (offload_rocm, made by offload_rocm_repository): HIP
headers, device-library bitcode and the HIP runtime, with what it supports.""",
    fields = {
        "found": "bool: False when no ROCm was found; error then says where it was looked for.",
        "error": "string: why there is no ROCm (when found is False).",
        "root": "string: execroot-relative root to pass as --rocm-path (from the repository's label).",
        "version": "string: the HIP version of the headers (\"5.2.21153\").",
        "processors": "list of string: processors with device libraries (oclc_isa_version_*.bc), e.g. gfx906.",
        "code_object_version": "int: the -mcode-object-version the device libraries support at most (0: clang's default).",
        "wavefront_macro": "bool: whether the HIP headers read __AMDGCN_WAVEFRONT_SIZE.",
        "fp16_compat_header": "File or None: declarations ROCm 5's hip_fp16.h expects clang's HIP wrapper to " +
                              "make (__llvm_amdgcn_rcp_f16), for a clang whose wrapper no longer does.",
        "files": "depset of File: headers, device libraries and the version file (compile inputs).",
        "runtime": "list of File: libamdhip64 for linking.",
        "hip_bitcode": "File or None: hip.bc, the device library of ROCm before 6 that its HIP headers " +
                       "call into (__syncthreads, __threadfence), which clang 22 does not link by itself.",
    },
)

OffloadCudaInfo = provider(
    doc = """A CUDA installation (offload_cuda, made by offload_cuda_repository):
headers, libdevice, ptxas, fatbinary, nvlink and cudart.""",
    fields = {
        "found": "bool: False when no CUDA was found; error then says where it was looked for.",
        "error": "string: why there is no CUDA (when found is False).",
        "root": "string: execroot-relative root to pass as --cuda-path (from the repository's label).",
        "version": "string: CUDA version (\"11.8\").",
        "archs": "list of string: the sm_XX and compute_XX that this ptxas builds.",
        "files": "depset of File: headers and libdevice (compile inputs).",
        "ptxas": "File or None: ptxas.",
        "fatbinary": "File or None: fatbinary.",
        "nvlink": "File or None: nvlink.",
        "cudart_static": "list of File: libcudart_static.a.",
        "cudart_shared": "list of File: libcudart.so and its versioned names.",
    },
)

OffloadDeviceCodeLibraryInfo = provider(
    doc = """An SDK library whose shared object carries device code for a fixed set of
processors (rocRAND, rocSPARSE): what the SDK repository read with `offload
inspect`. The compiling rules check their targets against it.""",
    fields = {
        "library": "string: the library's name (\"rocrand\").",
        "file": "string: the shared object the code objects were read from.",
        "code_objects": "list of string: the target IDs of its code objects (\"gfx906:xnack-\").",
    },
)
