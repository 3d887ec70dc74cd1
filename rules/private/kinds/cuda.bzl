"""CUDA: what the rules do for offload_library(kind = "cuda") and friends.

One struct of the kind's choices; registry.bzl lists it and documents the
fields. NVIDIA GPUs (nvptx): cubins through ptxas for sm_XX, PTX for
compute_XX, NVIDIA fat binaries; the CUDA installation of the clang
toolchain (clang.cuda) is read here and in families.bzl only.
"""

load(":common.bzl", "cuid_host_flags", "current_entry_layout", "has_any", "new_driver_flags", "no_device_link", "no_error", "no_wavefront", "no_wrap_flags", "shared_library")

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

def _host_flags(targets, cuid):
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

CUDA = struct(
    name = "cuda",
    families = ["nvptx"],
    ptx = True,
    bundle_kind = "",
    code_object_bundle_kind = "",
    bundle_error = "clang-offload-bundler has no \"cuda\" offload kind; use offload_package for CUDA",
    bundle_ext = ".bundle",
    code_objects = False,
    bitcode_copts_error = no_error,
    links_sources = False,
    link_compile = None,
    gpu_objects_are_bitcode = False,
    language_flags = ["-x", "cuda"],
    device_only_flags = [],
    cuid = True,
    add_device_flags = _add_device_flags,
    target_list_flags = _target_list_flags,
    wavefront = no_wavefront,
    host_wavefront = 0,
    sdk_error = _sdk_error,
    always_rdc = False,
    rdc_plan = _rdc_plan,
    device_with_host = False,
    fat_binary = "fatbinary",
    fat_binary_object = False,
    host_flags = _host_flags,
    runtime = _runtime,
    device_link = no_device_link,
    wrap_flags = no_wrap_flags,
    recorded_runtime = ["libcudart_static.a", "libcudart.so"],
    device_link_container = "fatbinary",
    linked_image_kind = "cubin",
    linked_image_ext = ".img",
    entry_layout = current_entry_layout,
)
