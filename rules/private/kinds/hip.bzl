"""HIP: what the rules do for offload_library(kind = "hip") and friends.

One offload_kind of the kind's choices, phase by phase (contract.bzl
documents them); registry.bzl lists it. AMD GPUs (amdgcn) and SPIR-V for
AMD; the ROCm installation of the clang toolchain (clang.rocm) is read here
and in families.bzl only.
"""

load(":common.bzl", "NEW_DRIVER_DEFAULT_MAJOR", "clang_major", "cuid_host_flags", "has_any", "new_driver_flags", "shared_library")
load(":contract.bzl", "bundle_phase", "compile_phase", "host_phase", "link_phase", "offload_kind", "runtime_phase")

# Flags that turn a HIP device compile's code object into LLVM bitcode.
_BITCODE_FLAGS = ["-fgpu-rdc", "-fcuda-rdc", "-emit-llvm", "-flto", "-foffload-lto"]

def _bitcode_copts_error(copts):
    """Why copts would make bitcode where code objects are expected, or ""."""
    for flag in copts:
        if flag in _BITCODE_FLAGS or flag.startswith("-flto="):
            return ("copts: %s makes LLVM bitcode, not the code objects the runtime loads from this " % flag +
                    "container (several sources are device-linked with -fgpu-rdc already); for " +
                    "relocatable device code use offload_library(rdc = True), for bitcode type = \"bc\"")
    return ""

def _hip_bitcode_flags(clang, copts):
    """Links ROCm 5's hip.bc into a HIP device compile, as the clang of ROCm 5 did.

    ROCm 5's HIP headers implement __syncthreads, __threadfence and friends
    with functions of hip.bc (__atomic_work_item_fence); clang 22 does not
    link that library by itself, so such kernels fail to link
    ("undefined hidden symbol: __atomic_work_item_fence"). A ROCm without
    hip.bc gets no flag. -nogpulib opts out, as for the other device
    libraries.
    """
    rocm = clang.rocm
    if not rocm or not rocm.found or not rocm.hip_bitcode:
        return []
    if "-nogpulib" in clang.copts + clang.kind_copts.get("hip", []) + copts:
        return []
    return ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", rocm.hip_bitcode.path]

def _add_device_flags(args, clang, target, _emit_flags, copts):
    if target.family.name == "amdgcn":
        args.add_all(_hip_bitcode_flags(clang, copts))

def _wavefront(clang, target):
    # Where the toolchain's HIP headers want it defined (old ROCm, a clang
    # that does not predefine it); only AMDGPU targets: SPIR-V leaves the
    # wavefront size to the runtime.
    if not clang.hip_wavefront_define:
        return 0
    return target.family.wavefront_size(target.processor)

def _host_wavefront(clang):
    # The host compile defines 64 wherever the device compiles define theirs.
    return 64 if clang.hip_wavefront_define else 0

def _sdk_error(clang, target, flags):
    """Targets ROCm has no device libraries for, or no ROCm at all."""
    if target.family.name != "amdgcn":
        return ""  # ROCm's device libraries are AMDGPU bitcode
    if has_any(flags, ["-nogpulib"]):
        return ""  # freestanding: no device libraries to find
    rocm = clang.rocm
    if rocm == None:
        return ""  # a toolchain without a declared ROCm: clang decides
    if not rocm.found:
        if has_any(flags, ["-nogpuinc"]):
            return ""
        return ("HIP target %r needs ROCm (HIP headers and device libraries), and the clang toolchain's " +
                "ROCm has none: %s. Install it, point the repository at it, or compile freestanding " +
                "(copts = [\"-nogpuinc\", \"-nogpulib\"]).") % (target.name, rocm.error)
    if target.processor not in rocm.processors:
        return ("target %r: ROCm %s (%s) has no device libraries for %s; it has them for %s. Choose one " +
                "of those, use a ROCm that supports %s, or compile without device libraries " +
                "(copts = [\"-nogpulib\"]).") % (
            target.name,
            rocm.version,
            rocm.root,
            target.processor,
            ", ".join(rocm.processors),
            target.processor,
        )
    return ""

def _rdc_plan(clang, target):
    if target.ptx:
        return None, ("target %r: relocatable device code is linked by nvlink, which takes cubins, " % target.name +
                      "not PTX; use sm_%s, or rdc = False" % target.processor[len("sm_"):])

    # ".o", not ".bc": clang compiles a .bc input again (device libraries
    # and all) instead of handing it to the LTO link.
    return struct(flags = ["-c", "-fgpu-rdc"] + new_driver_flags(clang), ext = ".rdc.o", image_kind = "bitcode", files = []), ""

def _whole_program_link(clang, targets):
    """clang 23's new driver for whole-program HIP, or None (clang before 23, or not AMDGPU).

    From clang 23 (and on LLVM main, which has no other driver) `clang -c
    a.hip` compiles each target's device code to LTO bitcode and has
    clang-linker-wrapper --emit-fatbin-only link it per target (clang
    --target=amdgcn-amd-amdhsa -mcpu=... -flto -Wl,--no-undefined -O2, the
    relocatable link's flags) before it bundles the images as hip- entries.
    The code objects differ from the old driver's (no __hip_cuid_ symbol),
    so the rules build them the same way. SPIR-V targets keep the code
    object compile: the wrapper links them otherwise.
    """
    major = clang_major(clang)
    if not major or major < NEW_DRIVER_DEFAULT_MAJOR:
        return None
    for t in targets:
        if t.family.name != "amdgcn":
            return None

    # ".o", not ".bc": clang would compile a .bc input again instead of
    # handing it to the LTO link.
    return struct(compile_flags = ["-c", "-emit-llvm", "-foffload-lto=full"], ext = ".lto.o", container = "hip_fatbin_linked")

def _host_flags(_clang, targets, cuid):
    return cuid_host_flags(["-x", "hip"], targets, cuid)

def _runtime(clang, runtime):
    """libamdhip64 of the clang toolchain's ROCm: a shared library only."""
    rocm = clang.rocm
    if runtime == "static":
        return None, "runtime = \"static\": ROCm's HIP runtime (libamdhip64) is a shared library only"
    if not rocm or not rocm.found or not rocm.runtime:
        return None, ("the HIP runtime (libamdhip64.so) is not in the clang toolchain's ROCm; " +
                      "install libamdhip64-dev, or set runtime = \"none\" and link it yourself")
    return struct(static = None, dynamic = [shared_library(rocm.runtime, "libamdhip64.so")], flags = []), ""

HIP = offload_kind(
    name = "hip",
    families = ["amdgcn", "spirv"],
    bundle_kind = "hip",
    code_object_bundle_kind = "hipv4",
    compile = compile_phase(
        language_flags = ["-x", "hip"],
        device_only_flags = ["--no-gpu-bundle-output"],
        cuid = True,
        add_flags = _add_device_flags,
        wavefront = _wavefront,
        sdk_error = _sdk_error,
    ),
    bundle = bundle_phase(
        ext = ".hipfb",
        code_objects = True,
        bitcode_copts_error = _bitcode_copts_error,
        links_sources = True,
        link_compile = (["-fgpu-rdc"], ".rdc.bc"),
    ),
    host = host_phase(
        flags = _host_flags,
        wavefront = _host_wavefront,
        fat_binary = "hip_fatbin",
        fat_binary_object = True,
        whole_program_link = _whole_program_link,
    ),
    link = link_phase(
        rdc_plan = _rdc_plan,
        container = "hip_fatbin",
        image_kind = "object",
    ),
    runtime = runtime_phase(
        libraries = _runtime,
        recorded = ["libamdhip64.so"],
    ),
)
