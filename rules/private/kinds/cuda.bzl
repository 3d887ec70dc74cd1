"""CUDA: what the rules do for offload_library(kind = "cuda") and friends.

One offload_kind of the kind's choices, phase by phase (contract.bzl
documents them); registry.bzl lists it. NVIDIA GPUs (nvptx): cubins through
ptxas for sm_XX, PTX for compute_XX, NVIDIA fat binaries; the CUDA
installation of the clang toolchain (clang.cuda) is read here and in
families.bzl only.
"""

load(":common.bzl", "cuid_host_flags", "has_any", "new_driver_flags", "shared_library")
load(":contract.bzl", "bundle_phase", "compile_phase", "host_phase", "link_phase", "offload_kind", "runtime_phase")

# nvcc links cudart_static with these by default; the static runtime calls
# dlopen, clock_gettime and pthreads.
_CUDART_STATIC_FLAGS = ["-ldl", "-lrt", "-lpthread"]

def _add_device_flags(args, clang, _target, emit_flags, _copts):
    # A cubin: clang runs ptxas.
    if clang.ptxas and "-c" in emit_flags and "-emit-llvm" not in emit_flags:
        args.add("--ptxas-path=" + clang.ptxas)

def _target_list_flags(targets):
    """-D__CUDA_ARCH_LIST__ as clang's one multi-arch compile defines it for every half.

    clang's driver defines __CUDA_ARCH_LIST__ from all --offload-arch values
    in the host compile and in every device compile (sorted, deduplicated,
    sm_90a as 900); a device-only compile for one target would see that
    target alone. CUB names its inline namespace after the list
    (cub::CUB_101702_700_900_NS), so per-target device compiles must see the
    whole list, or the kernels the host half registers exist in no device
    image (cudaErrorSymbolNotFound at the first Thrust call). The rule's
    flags follow the driver's, so -U then -D replaces its value without a
    redefinition warning.
    """
    numbers = []
    for t in targets:
        if t.family.name != "nvptx" or not t.processor.startswith("sm_"):
            continue
        n = int(t.processor[len("sm_"):].rstrip("abcdefghijklmnopqrstuvwxyz")) * 10
        if n not in numbers:
            numbers.append(n)
    if not numbers:
        return []
    return ["-U__CUDA_ARCH_LIST__", "-D__CUDA_ARCH_LIST__=" + ",".join([str(n) for n in sorted(numbers)])]

def _sdk_error(clang, target, flags):
    """Targets the CUDA's ptxas cannot build, or no CUDA at all."""
    cuda = clang.cuda
    if target.family.name != "nvptx" or cuda == None:
        return ""
    if not cuda.found:
        if has_any(flags, ["-nocudainc", "-nogpuinc"]):
            return ""
        return ("CUDA target %r needs a CUDA toolkit (headers, libdevice, ptxas), and the clang toolchain's " +
                "CUDA has none: %s. Install it, point the repository at it, or compile freestanding " +
                "(copts = [\"-nocudainc\", \"-nocudalib\"]).") % (target.name, cuda.error)
    arch = ("compute_" + target.processor[len("sm_"):]) if target.ptx else target.processor
    if cuda.archs and arch not in cuda.archs:
        return "target %r: CUDA %s (%s) cannot build %s; its ptxas supports %s." % (
            target.name,
            cuda.version,
            cuda.root,
            arch,
            ", ".join([a for a in cuda.archs if a.startswith(arch.partition("_")[0] + "_")]),
        )
    return ""

def _rdc_plan(clang, target):
    if target.ptx:
        return None, ("target %r: relocatable device code is linked by nvlink, which takes cubins, " % target.name +
                      "not PTX; use sm_%s, or rdc = False" % target.processor[len("sm_"):])
    return struct(flags = ["-c", "-fgpu-rdc"] + new_driver_flags(clang), ext = ".rdc.o", image_kind = "cubin", files = []), ""

def _host_flags(_clang, targets, cuid):
    return cuid_host_flags(["-x", "cuda"], targets, cuid)

def _runtime(clang, runtime):
    """cudart of the clang toolchain's CUDA: static by default, as nvcc links it."""
    cuda = clang.cuda
    if not cuda or not cuda.found:
        return None, ("the clang toolchain has no CUDA installation, so no cudart to link; " +
                      "set runtime = \"none\" and link it yourself")
    if runtime == "shared":
        if not cuda.cudart_shared:
            return None, "runtime = \"shared\": the CUDA installation has no libcudart.so"
        return struct(static = None, dynamic = [shared_library(cuda.cudart_shared, "libcudart.so")], flags = []), ""
    if not cuda.cudart_static:
        return None, "the CUDA installation has no libcudart_static.a; set runtime = \"shared\" or \"none\""
    return struct(static = cuda.cudart_static[0], dynamic = [], flags = _CUDART_STATIC_FLAGS), ""

CUDA = offload_kind(
    name = "cuda",
    families = ["nvptx"],
    ptx = True,
    compile = compile_phase(
        language_flags = ["-x", "cuda"],
        cuid = True,
        target_list_flags = _target_list_flags,
        add_flags = _add_device_flags,
        sdk_error = _sdk_error,
    ),
    bundle = bundle_phase(
        error = "clang-offload-bundler has no \"cuda\" offload kind; use offload_package for CUDA",
    ),
    host = host_phase(
        flags = _host_flags,
        fat_binary = "fatbinary",
    ),
    link = link_phase(
        rdc_plan = _rdc_plan,
        container = "fatbinary",
        image_kind = "cubin",
    ),
    runtime = runtime_phase(
        libraries = _runtime,
        recorded = ["libcudart_static.a", "libcudart.so"],
    ),
)
