"""OpenMP: what the rules do for offload_library(kind = "openmp") and friends.

One offload_kind of the kind's choices, phase by phase (contract.bzl
documents them); registry.bzl lists it. Host-CPU devices (a triple such as
x86_64-pc-linux-gnu), NVIDIA GPUs (sm_XX) and AMD GPUs (gfxXXX). Device code
is always linked per program, and each source's device and host halves run
in one action (actions/joint_compile.bzl says why). The runtime, host and
device, is the compiler's LLVM's (clang.llvm): libomp and libomptarget for
the program, libomptarget-nvptx-sm_XX.bc / libomptarget-amdgpu-gfxXXX.bc for
GPU code, which LLVM must ship for the target (Debian's libomp-<N>-dev). GPU
device code is built as clang-16's own one-command build does it (measured
in docs/openmp-gpu.md): NVPTX compiles link the device runtime and run ptxas
(relocatable cubins, linked by nvlink); AMDGPU compiles make bitcode, which
the device link optimizes with the device runtime (lld full LTO).
"""

load(":common.bzl", "current_entry_layout")
load(":contract.bzl", "bundle_phase", "compile_phase", "host_phase", "link_phase", "offload_kind", "runtime_phase")

# The device runtime's name for a family's processors.
_RUNTIME_FAMILY = {"nvptx": "nvptx", "amdgcn": "amdgpu"}

def _runtime_bitcode(clang, target):
    """The LLVM's libomptarget-<family>-<processor>.bc for target, or None."""
    llvm = clang.llvm
    if not llvm or target.family.name not in _RUNTIME_FAMILY:
        return None
    return llvm.openmp_device_runtime.get(_RUNTIME_FAMILY[target.family.name] + "-" + target.processor)

def _rdc_plan(clang, target):
    """Per (source, target) one device compile, as clang-16's one-command build runs it.

    NVPTX: a relocatable cubin (clang runs ptxas), the device runtime linked
    into it (-mlink-builtin-bitcode, clang's default for NVPTX). AMDGPU:
    LLVM bitcode with ROCm's device libraries; the device runtime joins at
    the device link. Both named ".o": a .bc input would be compiled again by
    the device link's clang.
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
        bitcode = _runtime_bitcode(clang, target)
        flags = [
            "-c",
            "--cuda-path=" + cuda.root,
            "-Wno-unknown-cuda-version",
            "--ptxas-path=" + clang.ptxas,
            # The file clang-16 finds in its lib directory; named, it needs
            # no search path.
            "--libomptarget-nvptx-bc-path=" + bitcode.path,
        ]
        files = [depset([cuda.ptxas, bitcode] if cuda.ptxas else [bitcode], transitive = [cuda.files])]
        return struct(flags = flags, ext = ".o", image_kind = "cubin", files = files), ""
    rocm = clang.rocm
    flags = ["-c", "--rocm-device-lib-path=" + rocm.root + "/amdgcn/bitcode"]
    return struct(flags = flags, ext = ".o", image_kind = "bitcode", files = [rocm.files]), ""

def _available(clang, family):
    prefix = _RUNTIME_FAMILY[family] + "-"
    return sorted([k[len(prefix):] for k in clang.llvm.openmp_device_runtime if k.startswith(prefix)])

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
    if _runtime_bitcode(clang, target) == None:
        have = _available(clang, family)
        if not have:
            return ("OpenMP target %r: LLVM %s (%s) has no OpenMP device runtime for %s GPUs " % (target.name, llvm.version, llvm.clang.dirname, family) +
                    "(libomptarget-%s-*.bc); install libomp-%d-dev" % (_RUNTIME_FAMILY[family], llvm.major))
        return "OpenMP target %r: LLVM %s's OpenMP device runtime has no libomptarget-%s-%s.bc; it has %s" % (
            target.name,
            llvm.version,
            _RUNTIME_FAMILY[family],
            target.processor,
            ", ".join(have),
        )
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
    """AMDGPU: full LTO by lld with the device runtime, as clang-linker-wrapper 16 links it.

    Returns struct(flags, trailing, files) that replace the family's link
    flags, or None for the family's (nvlink for NVPTX, a shared object for
    host CPUs). The processor goes to the LTO by -plugin-opt=mcpu= (clang 16
    passes none: the image would name no processor). The runtime bitcode
    comes through -Wl, so clang hands it to lld as it is; the compiles
    linked the ROCm device libraries already (-nogpulib). Compiles and link
    keep clang's default code object version.
    """
    if target.family.name != "amdgcn":
        return None
    bitcode = _runtime_bitcode(clang, target)
    return struct(
        flags = [
            "--target=" + target.triple,
            "-mcpu=" + target.processor,
            "-nogpulib",
            "-flto",
            "-Wl,--no-undefined",
            "-Wl,-plugin-opt=mcpu=" + target.processor,
        ],
        trailing = ["-Wl," + bitcode.path] if bitcode else [],
        files = [depset([bitcode])] if bitcode else [],
    )

def _wrap_flags(version):
    """LLVM 15-19 register each image as an OffloadBinary in .llvm.offloading.

    libomptarget of those releases reads the image's arch there, to choose
    the image that suits the GPU; each target's image is registered. Run
    on libomptarget 15, 16 and 19 (tests/openmp); 17 and 18 are assumed
    to read it as they do (docs/compatibility.md).
    """
    major = version.split(".")[0]
    if major.isdigit() and int(major) >= 15 and int(major) < 20:
        return ["--offload-binaries"]
    return []

def _host_flags(targets, _cuid):
    triples = []
    for t in targets:
        if t.triple not in triples:
            triples.append(t.triple)
    return ["-fopenmp", "-fopenmp-targets=" + ",".join(triples), "--offload-host-only", "-c"]

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
