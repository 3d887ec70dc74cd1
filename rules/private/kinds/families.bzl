"""Device families: what depends on the processor family of a target.

Each resolved target carries one family struct (target.family, set by
rules/private/targets/targets.bzl). Rules, actions and kinds ask it instead
of testing triples. Fields:

  name:              "amdgcn", "nvptx", "spirv" or "host-cpu" (the names
                     the kinds' families lists use).
  wrong_kind:        the error for a kind that does not offload to this
                     family; %s is the kinds that do ("hip" or "openmp").
  wavefront_size:    function(processor) -> int, the default wavefront size
                     (AMDGPU), else 0.
  compile_plan:      function(file_type, target, has_ptxas) -> (struct(flags,
                     image_kind, ext) or None, error): a compile plan other
                     than the file type's (NVIDIA: PTX or cubins), else None.
  assembly_image:    the image kind of a prebuilt ".s" image.
  link_compile:      function(target) -> (flags, extension) of the compiles
                     a rule's device link takes.
  linked_ext:        function(target) -> the extension of that link's image.
  device_link_flags: function(clang, target, rdc) -> list of string or None:
                     the family's flags of a device link (actions/device_link.bzl);
                     None when it cannot link here.
  device_link_files: function(clang) -> list of depset: the SDK files a
                     device link of relocatable code reads.

A processor-less target (a triple, or an entry ID without a target ID) is
treated by its processor where clang's driver does: it is a host-CPU device
to compiles and links (-fopenmp-targets=, -shared). A new family is a struct
here, its triple prefix in _PREFIXES and its name in the kinds that take it.
"""

load(":common.bzl", "clang_major")

# clang-linker-wrapper split an AMDGPU device link's LTO into 8 partitions
# up to LLVM 22 (-flto-partitions=8); LLVM 23's links in one, which keeps
# fewer symbols (the __hip_cuid_ ones go). The relocatable link follows
# the wrapper of the clang that runs it.
_LTO_PARTITIONS_BEFORE_MAJOR = 23

def _lto_partition_flags(clang):
    major = clang_major(clang)
    if major and major >= _LTO_PARTITIONS_BEFORE_MAJOR:
        return []
    return ["-flto-partitions=8"]

def _no_wavefront(_processor):
    return 0

def _amdgcn_wavefront_size(processor):
    """The default wavefront size of an AMDGPU processor: 32 from gfx10 on, else 64.

    Old HIP headers (ROCm before 6) take warpSize from __AMDGCN_WAVEFRONT_SIZE,
    which clang 22 no longer predefines; the toolchain defines it per target.
    """
    digits = processor[len("gfx"):]
    if len(digits) >= 4 and digits[:2] in ("10", "11", "12"):
        return 32  # gfx1010 ... gfx1201, and gfx10-1-generic ... gfx12-generic
    return 64

def _no_plan(_file_type, _target, _has_ptxas):
    return None, ""

def _nvptx_compile_plan(file_type, target, has_ptxas):
    """PTX for type "s" and compute_XX targets, cubins (ptxas) for objects."""
    if file_type == "s" or (file_type == "o" and target.ptx):
        return struct(flags = ["-S"], image_kind = "ptx", ext = ".s"), ""
    if file_type == "o":
        if not has_ptxas:
            return None, ("target %r asks for a CUDA cubin (SASS), which needs ptxas, and the clang " +
                          "toolchain declares none (offload_clang_toolchain(ptxas = ...)). Use compute_%s " +
                          "(or type = \"s\") for PTX, which clang makes by itself.") % (
                target.name,
                target.processor[len("sm_"):],
            )
        return struct(flags = ["-c"], image_kind = "cubin", ext = ".cubin"), ""
    return None, ""

def _link_compile(target):
    # The host-CPU device links position-independent objects into a shared
    # object; GPUs link LLVM bitcode.
    if not target.processor:
        return ["-fPIC"], ".pic.o"
    return [], ".bc"

def _linked_ext(target):
    return ".so" if not target.processor else ".o"

def _host_link_flags(target):
    """An ELF shared object, which the runtime's CPU plugin loads with dlopen."""
    return ["--target=" + target.triple, "-shared"]

def _code_object_link_flags(target):
    """lld links an AMDGPU code object for the processor and its features."""
    return ["--target=" + target.triple, "-mcpu=" + target.target_id, "-nostdlib"]

def _nvlink_flags(clang, target):
    """clang-nvlink-wrapper runs the CUDA installation's nvlink over relocatable cubins."""
    if not target.processor:
        return _host_link_flags(target)
    flags = ["--target=" + target.triple, "-march=" + target.processor]
    if clang.cuda and clang.cuda.found:
        flags.append("--cuda-path=" + clang.cuda.root)
    return flags

def _amdgcn_link_flags(clang, target, rdc):
    """A code object; rdc: full LTO of the bitcode by lld.

    LTO gets the ROCm flags the device compiles had: it generates code for
    the ABI they name.
    """
    if not rdc:
        return _code_object_link_flags(target)
    flags = ["--target=" + target.triple, "-mcpu=" + target.target_id, "-flto", "-Wl,--no-undefined"]
    rocm = clang.rocm
    if rocm and rocm.found:
        flags.append("--rocm-path=" + rocm.root)
        if rocm.code_object_version:
            flags.append("-mcode-object-version=%d" % rocm.code_object_version)
    return flags + _lto_partition_flags(clang)

def _spirv_link_flags(clang, target, rdc):
    """SPIR-V for AMD links as a code object; its relocatable code goes the nvlink way."""
    if not rdc:
        return _code_object_link_flags(target)
    return _nvlink_flags(clang, target)

def _nvptx_link_flags(clang, target, rdc):
    """Relocatable cubins: nvlink; other cubins: None (not linked here).

    Several sources' cubins (not rdc) would need nvlink too, which these
    rules do not run. A processor-less target links as a host-CPU device.
    """
    if rdc:
        return _nvlink_flags(clang, target)
    if not target.processor:
        return _host_link_flags(target)
    return None

def _no_files(_clang):
    return []

def _rocm_files(clang):
    """ROCm's files (the device libraries of LTO), when the toolchain has them."""
    return [clang.kind_files["hip"]] if "hip" in clang.kind_files else []

def _cuda_files(clang):
    """nvlink and the CUDA installation, which clang-nvlink-wrapper reads."""
    cuda = clang.cuda
    if not cuda or not cuda.found:
        return []
    return [depset([f for f in [cuda.nvlink] if f], transitive = [cuda.files])]

AMDGCN = struct(
    name = "amdgcn",
    wrong_kind = "AMD processors need kind %s",
    wavefront_size = _amdgcn_wavefront_size,
    compile_plan = _no_plan,
    assembly_image = "assembly",
    link_compile = _link_compile,
    linked_ext = _linked_ext,
    device_link_flags = _amdgcn_link_flags,
    device_link_files = _rocm_files,
)

NVPTX = struct(
    name = "nvptx",
    wrong_kind = "NVIDIA processors need kind %s",
    wavefront_size = _no_wavefront,
    compile_plan = _nvptx_compile_plan,
    assembly_image = "ptx",
    link_compile = _link_compile,
    linked_ext = _linked_ext,
    device_link_flags = _nvptx_link_flags,
    device_link_files = _cuda_files,
)

SPIRV = struct(
    name = "spirv",
    wrong_kind = "amdgcnspirv needs kind %s",
    wavefront_size = _no_wavefront,
    compile_plan = _no_plan,
    assembly_image = "assembly",
    link_compile = _link_compile,
    linked_ext = _linked_ext,
    device_link_flags = _spirv_link_flags,
    device_link_files = _no_files,
)

HOST_CPU = struct(
    name = "host-cpu",
    wrong_kind = "a triple as a target is an OpenMP host-CPU device; it needs kind %s",
    wavefront_size = _no_wavefront,
    compile_plan = _no_plan,
    assembly_image = "assembly",
    link_compile = _link_compile,
    linked_ext = _linked_ext,
    device_link_flags = _nvptx_link_flags,
    device_link_files = _no_files,
)

FAMILIES = [AMDGCN, NVPTX, SPIRV, HOST_CPU]

# GPU families by the start of a triple; every other triple is a host CPU.
_PREFIXES = [("amdgcn", AMDGCN), ("nvptx", NVPTX), ("spirv", SPIRV)]

def family_of(triple):
    """The family of a (normalized) triple: "amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", ...

    Args:
      triple: the target's triple.

    Returns:
      a family struct.
    """
    for prefix, family in _PREFIXES:
        if triple.startswith(prefix):
            return family
    return HOST_CPU
