"""OpenMP: what the rules do for offload_library(kind = "openmp") and friends.

One struct of the kind's choices; registry.bzl lists it and documents the
fields. Host-CPU devices (a triple such as x86_64-pc-linux-gnu) for
libraries; AMD and NVIDIA GPUs for bundles and packages. Device code is
always linked per program, and each source's device and host halves run in
one action (actions/openmp_compile.bzl says why). The runtime is the
compiler's LLVM's (clang.llvm).
"""

load(":common.bzl", "add_nothing", "current_entry_layout", "no_error", "no_target_list_flags", "no_wavefront")

def _rdc_plan(target):
    if target.processor:
        return None, ("target %r: OpenMP libraries offload to host-CPU devices (x86_64-pc-linux-gnu); " % target.name +
                      "a GPU's device link needs LLVM's OpenMP device runtime, which these rules do not link yet")

    # The host-CPU device links a shared object that the runtime's
    # plugin loads with dlopen.
    return struct(flags = ["-c", "-fPIC"], ext = ".pic.o", image_kind = "object"), ""

def _host_flags(targets, _cuid):
    triples = []
    for t in targets:
        if t.triple not in triples:
            triples.append(t.triple)
    return ["-fopenmp", "-fopenmp-targets=" + ",".join(triples), "--offload-host-only", "-c"]

def _runtime(clang, runtime):
    """libomp and libomptarget of the clang toolchain's LLVM.

    Device code, host code and runtime must come from one LLVM release: the
    runtime is the compiler's own. Its host-CPU plugin is not linked:
    libomptarget opens it by name at run time (LD_LIBRARY_PATH).
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

OPENMP = struct(
    name = "openmp",
    families = ["amdgcn", "nvptx", "host-cpu"],
    ptx = False,
    bundle_kind = "openmp",
    code_object_bundle_kind = "openmp",
    bundle_error = "",
    bundle_ext = ".bundle",
    code_objects = False,
    bitcode_copts_error = no_error,
    links_sources = False,
    link_compile = None,
    gpu_objects_are_bitcode = True,
    language_flags = ["-fopenmp"],
    device_only_flags = [],
    cuid = False,
    target_list_flags = no_target_list_flags,
    add_device_flags = add_nothing,
    wavefront = no_wavefront,
    host_wavefront = 0,
    sdk_error = no_error,
    always_rdc = True,
    rdc_plan = _rdc_plan,
    device_with_host = True,
    fat_binary = "",
    fat_binary_object = False,
    host_flags = _host_flags,
    runtime = _runtime,
    recorded_runtime = ["libomptarget.so"],
    device_link_container = "package",
    linked_image_kind = "object",
    entry_layout = _entry_layout,
)
