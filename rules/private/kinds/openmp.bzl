"""OpenMP: what the rules do for offload_library(kind = "openmp") and friends.

One offload_kind of the kind's choices, phase by phase (contract.bzl
documents them); registry.bzl lists it. Host-CPU devices (a triple such as
x86_64-pc-linux-gnu), NVIDIA GPUs (sm_XX) and AMD GPUs (gfxXXX). Device code
is always linked per program, and each source's device and host halves run
in one action (actions/joint_compile.bzl says why). The runtime, host and
device, is the compiler's LLVM's (clang.llvm): libomp and libomptarget for
the program, and the device runtime for GPU code, which LLVM must ship for
the target in one of its layouts (openmp_device_runtime.bzl: LLVM 16's and
19's libomptarget-<family>-<processor>.bc, LLVM 20's
lib/<triple>/libompdevice.a).
GPU device code is built as clang's own one-command build does it (measured
in docs/openmp-gpu.md): NVPTX compiles link the device runtime's bitcode and
run ptxas (relocatable cubins, linked by nvlink); AMDGPU compiles make
bitcode, which the device link optimizes with the device runtime (lld full
LTO); the layout says what each step adds.
"""

load(":common.bzl", "clang_major", "current_entry_layout")
load(":contract.bzl", "bundle_phase", "compile_phase", "host_phase", "link_phase", "offload_kind", "runtime_phase")
load(":openmp_device_runtime.bzl", "device_runtime_layout")

def _rdc_plan(clang, target):
    """Per (source, target) one device compile, as clang's one-command build runs it.

    NVPTX: a relocatable cubin (clang runs ptxas), the device runtime's
    bitcode linked into it (-mlink-builtin-bitcode, clang's default for
    NVPTX). AMDGPU: LLVM bitcode with ROCm's device libraries; the device
    runtime joins at the device link. Both named ".o": a .bc input would be
    compiled again by the device link's clang.
    """
    if not target.processor:
        # The host-CPU device links a shared object that the runtime's
        # plugin loads with dlopen.
        return struct(flags = ["-c", "-fPIC"], ext = ".pic.o", image_kind = "object", files = []), ""
    err = _gpu_error(clang, target)
    if err:
        return None, err
    if target.family.name == "nvptx":
        cuda = clang.cuda
        runtime_flags, runtime_files = device_runtime_layout(clang.llvm).nvptx_compile(clang, target)
        flags = [
            "-c",
            "--cuda-path=" + cuda.root,
            "-Wno-unknown-cuda-version",
            "--ptxas-path=" + clang.ptxas,
        ] + runtime_flags
        files = [depset(([cuda.ptxas] if cuda.ptxas else []) + runtime_files, transitive = [cuda.files])]
        return struct(flags = flags, ext = ".o", image_kind = "cubin", files = files), ""
    rocm = clang.rocm
    flags = ["-c", "--rocm-device-lib-path=" + rocm.root + "/amdgcn/bitcode"]
    return struct(flags = flags, ext = ".o", image_kind = "bitcode", files = [rocm.files]), ""

def _undeclared_sdk(target, what, attribute, default):
    """The error for a GPU target of a clang toolchain that declares no SDK for it.

    offload_clang_toolchain(llvm = ...) takes its SDKs only as attributes: a
    toolchain written without them has none, whatever repositories the
    workspace holds. The message names the attribute and the repository the
    default toolchain (//rules/toolchains:hermetic_clang) passes.
    """
    return ("OpenMP target %r needs %s, and the clang toolchain declares none: set " % (target.name, what) +
            "offload_clang_toolchain(%s = \"%s\") (the workspace's, as the default toolchain does) " % (attribute, default) +
            "or another offload_%s" % attribute)

def _gpu_error(clang, target):
    """Why clang's LLVM, its OpenMP device runtime or the SDK cannot serve a GPU target, or ""."""
    family = target.family.name
    llvm = clang.llvm
    if not llvm:
        return ("OpenMP target %r needs LLVM's OpenMP device runtime, which only an offload_clang_toolchain(llvm = ...) " % target.name +
                "declares (an offload_llvm_repository of the LLVM that also runs the program)")
    if target.target_id != target.processor and llvm.major < 17:
        return ("target %r: clang %s's OpenMP takes processors without features (it refuses %s: " % (target.name, llvm.version, target.target_id) +
                "\"unknown target CPU\"); use %s" % target.processor)
    layout = device_runtime_layout(llvm)
    if not layout.has(clang, target):
        return layout.missing(clang, target)
    if family == "nvptx":
        cuda = clang.cuda
        if not cuda:
            return _undeclared_sdk(target, "a CUDA toolkit (libdevice, ptxas, nvlink)", "cuda", "@offload_cuda//:cuda")
        if not cuda.found or not clang.ptxas:
            return ("OpenMP target %r needs a CUDA toolkit (libdevice, ptxas, nvlink), and the clang toolchain has " % target.name +
                    "none%s" % ((": " + cuda.error) if not cuda.found else ""))
        if cuda.archs and target.processor not in cuda.archs:
            return "target %r: CUDA %s (%s) cannot build %s; its ptxas supports %s." % (
                target.name,
                cuda.version,
                cuda.root,
                target.processor,
                ", ".join([a for a in cuda.archs if a.startswith("sm_")]),
            )
    else:
        rocm = clang.rocm
        if not rocm:
            return _undeclared_sdk(target, "ROCm's device libraries", "rocm", "@offload_rocm//:rocm")
        if not rocm.found:
            return "OpenMP target %r needs ROCm's device libraries, and the clang toolchain has none: %s" % (target.name, rocm.error)
        if target.processor not in rocm.processors:
            return "target %r: ROCm %s (%s) has no device libraries for %s; it has them for %s." % (
                target.name,
                rocm.version,
                rocm.root,
                target.processor,
                ", ".join(rocm.processors),
            )
    return ""

def _device_link(clang, target):
    """The device link's flags as the LLVM's device runtime layout wants them (openmp_device_runtime.bzl).

    Returns struct(flags, trailing, files) that replace the family's link
    flags, or None for the family's (host CPUs: a shared object).
    """
    if not clang.llvm or not target.processor:
        return None
    link = device_runtime_layout(clang.llvm).device_link(clang, target)
    if not link:
        return None
    return struct(
        flags = link.flags,
        trailing = link.trailing,
        files = [depset(link.runtime)] if link.runtime else [],
    )

def _wrap_flags(version):
    """LLVM 15-19 register each image as an OffloadBinary in .llvm.offloading.

    libomptarget of those releases reads the image's arch there, to choose
    the image that suits the GPU; each target's image is registered. Run
    on libomptarget 15, 16 and 19 (tests/openmp); 17 and 18 are assumed
    to read it as they do (docs/compatibility.md). LLVM 20 and later keep
    each image's OffloadBinary in .llvm.offloading too, but register the
    image inside it (clang-linker-wrapper 21's program, measured); each
    target's image is registered.
    """
    major = version.split(".")[0]
    if major.isdigit() and int(major) >= 15 and int(major) < 20:
        return ["--offload-binaries"]
    if major.isdigit() and int(major) >= 20:
        return ["--split-packages"]
    return []

# LLVM 16's host half names every target by its triple (-fopenmp-targets),
# byte-identical to clang-16's own build. Later clang's driver wants a
# processor for each GPU triple there, even for the host half: clang-21
# runs amdgpu-arch/nvptx-arch and fails without a GPU ("cannot determine
# nvptx64 architecture"; clang-23 does not). From LLVM 20 on the GPU
# targets go by --offload-arch (which OpenMP takes since LLVM 15), as
# clang's own build names them; the host object is the same bytes
# (measured with clang-21: --offload-arch=gfx90a,sm_70,sm_90 and
# -fopenmp-targets with -Xopenmp-target -march give one object). clang-19
# takes the GPU triples without a GPU, and ignores --offload-arch beside
# -fopenmp-targets (a host CPU target): "argument unused during
# compilation"; its host object is the same bytes either way (measured).
_OFFLOAD_ARCH_FROM_MAJOR = 20

def _host_flags(clang, targets, _cuid):
    major = clang_major(clang)
    triples = []
    archs = []
    for t in targets:
        if major >= _OFFLOAD_ARCH_FROM_MAJOR and t.processor:
            if t.target_id not in archs:
                archs.append(t.target_id)
        elif t.triple not in triples:
            triples.append(t.triple)
    flags = ["-fopenmp"]
    if archs:
        flags.append("--offload-arch=" + ",".join(archs))
    if triples:
        flags.append("-fopenmp-targets=" + ",".join(triples))
    return flags + ["--offload-host-only", "-c"]

def _runtime(clang, runtime):
    """libomp and libomptarget of the clang toolchain's LLVM.

    Device code, host code and runtime must come from one LLVM release: the
    runtime is the compiler's own. Its plugins are not linked: libomptarget
    opens them by name at run time (LD_LIBRARY_PATH).
    """
    if runtime == "static":
        return None, "runtime = \"static\": LLVM's OpenMP offload runtime (libomptarget) is a shared library only"
    llvm = clang.llvm
    libs = llvm.openmp_runtime if llvm else []
    wanted = [f for f in libs if f.basename.startswith("libomp.so") or f.basename.startswith("libomptarget.so")]
    if len(wanted) != 2:
        return None, ("the clang toolchain's LLVM has no OpenMP offload runtime (libomp and libomptarget); " +
                      "install libomp-<version>-dev and use an offload_llvm_repository toolchain, or set " +
                      "runtime = \"none\" and link it yourself")
    return struct(static = None, dynamic = wanted, flags = []), ""

def _entry_layout(version):
    """The offload entry layout of host objects compiled by clang of this version.

    OpenMP host objects from LLVM before 20 have the legacy entries (section
    omp_offloading_entries) that libomptarget of their release reads.
    """
    major = version.split(".")[0]
    if major.isdigit() and int(major) < 20:
        return "legacy"
    return current_entry_layout(version)

OPENMP = offload_kind(
    name = "openmp",
    families = ["amdgcn", "nvptx", "host-cpu"],
    bundle_kind = "openmp",
    code_object_bundle_kind = "openmp",
    compile = compile_phase(
        language_flags = ["-fopenmp"],
        gpu_objects_are_bitcode = True,
    ),
    bundle = bundle_phase(),
    host = host_phase(
        flags = _host_flags,
        device_with_host = True,
    ),
    link = link_phase(
        rdc_plan = _rdc_plan,
        container = "package",
        image_kind = "object",
        # ".o": offload packager records IMG_Object, the image kind
        # clang-linker-wrapper 16 gives every linked OpenMP image
        # (llvm-objdump --offloading: "kind elf"; ".img" gave IMG_None).
        image_ext = ".o",
        always_rdc = True,
        device_link = _device_link,
        wrap_flags = _wrap_flags,
        entry_layout = _entry_layout,
    ),
    runtime = runtime_phase(
        libraries = _runtime,
        recorded = ["libomptarget.so"],
    ),
)
