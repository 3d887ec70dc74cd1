"""The OpenMP device runtime of GPU targets, in the layouts LLVM ships it.

An LLVM installation has one of them; offload_llvm_repository finds which
(OffloadLlvmInfo.openmp_device_layout) and the OpenMP kind asks the layout,
never clang's version, what a GPU target's compiles and device link add:

  per-processor (LLVM 16; Debian's libomp-16-dev): lib/libomptarget-<family>-
      <processor>.bc, one bitcode file per processor. clang links the NVPTX
      one into every device compile (-mlink-builtin-bitcode); nothing at the
      NVPTX device link (nvlink). The AMDGPU device link takes the processor's
      file into its LTO (clang-linker-wrapper 16).
  per-processor-lto (LLVM 19; Debian's libomp-19-dev): the same files, in an
      LLVM with clang-nvlink-wrapper. NVPTX compiles still link the
      processor's file, but leave undefined the runtime functions that the
      optimizer calls after that link (__kmpc_get_warp_size, ...), so the
      NVPTX device link takes the file again, through clang-nvlink-wrapper's
      LTO (clang-linker-wrapper 19 runs that LTO in process). AMDGPU: as
      per-processor, the processor from -mcpu.
  per-triple (LLVM 20 and later; Debian's liboffload-<N>-dev, upstream and
      AMD builds): lib/<triple>/libompdevice.a, a bitcode archive, and
      lib/<triple>/libomptarget-<family>.bc, for every processor of the
      family. clang still links libomptarget-nvptx.bc into NVPTX compiles;
      the device link of both families takes libompdevice.a, as
      clang-linker-wrapper passes it (-lompdevice): lld's LTO for AMDGPU,
      clang-nvlink-wrapper's LTO (then ptxas and nvlink) for NVPTX.

Each layout is a struct of functions of (clang, target):
  has(clang, target) -> whether the runtime serves the target;
  missing(clang, target) -> the error when it does not;
  nvptx_compile(clang, target) -> (flags, files) an NVPTX device compile adds;
  device_link(clang, target) -> struct(flags, trailing, runtime) replacing
      the family's flags of the relocatable device link (trailing: after the
      objects; runtime: the list of File they name), or None for the
      family's.
"""

# The device runtime's name for a family's processors.
_RUNTIME_FAMILY = {"nvptx": "nvptx", "amdgcn": "amdgpu"}

def _family(target):
    return _RUNTIME_FAMILY.get(target.family.name)

# --- per-processor (LLVM 16) ---

def _bitcode(clang, target):
    """The LLVM's libomptarget-<family>-<processor>.bc for target, or None."""
    if not _family(target):
        return None
    return clang.llvm.openmp_device_runtime.get(_family(target) + "-" + target.processor)

def _available(clang, target):
    prefix = _family(target) + "-"
    return sorted([k[len(prefix):] for k in clang.llvm.openmp_device_runtime if k.startswith(prefix)])

def _per_processor_has(clang, target):
    return _bitcode(clang, target) != None

def _per_processor_missing(clang, target):
    llvm = clang.llvm
    family = _family(target)
    have = _available(clang, target)
    if not have:
        return ("OpenMP target %r: LLVM %s (%s) has no OpenMP device runtime for %s GPUs " % (target.name, llvm.version, llvm.clang.dirname, target.family.name) +
                "(libomptarget-%s-*.bc); install libomp-%d-dev" % (family, llvm.major))
    return "OpenMP target %r: LLVM %s's OpenMP device runtime has no libomptarget-%s-%s.bc; it has %s" % (
        target.name,
        llvm.version,
        family,
        target.processor,
        ", ".join(have),
    )

def _per_processor_nvptx_compile(clang, target):
    bitcode = _bitcode(clang, target)

    # The file clang-16 finds in its lib directory; named, it needs no
    # search path.
    return ["--libomptarget-nvptx-bc-path=" + bitcode.path], [bitcode]

def _per_processor_device_link(clang, target):
    """AMDGPU: full LTO by lld with the device runtime, as clang-linker-wrapper 16 links it.

    The processor goes to the LTO by -plugin-opt=mcpu= (clang 16 passes
    none: the image would name no processor). The runtime bitcode comes
    through -Wl, so clang hands it to lld as it is; the compiles linked the
    ROCm device libraries already (-nogpulib). Compiles and link keep
    clang's default code object version. NVPTX: the family's (nvlink).
    """
    if target.family.name != "amdgcn":
        return None
    bitcode = _bitcode(clang, target)
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
        runtime = [bitcode] if bitcode else [],
    )

PER_PROCESSOR = struct(
    name = "per-processor",
    has = _per_processor_has,
    missing = _per_processor_missing,
    nvptx_compile = _per_processor_nvptx_compile,
    device_link = _per_processor_device_link,
)

# --- per-processor-lto (LLVM 19) ---

# The PTX feature libomptarget.devicertl.a records for each NVPTX member
# (the processor's libomptarget-nvptx-sm_XX.bc, byte for byte), which
# clang-linker-wrapper 19 gives its LTO: the runtime's PTX says
# ".version 6.3" (or the processor's minimum, if higher) instead of
# clang-nvlink-wrapper's default.
_DEVICE_RUNTIME_PTX_FEATURE = "+ptx63"

def _per_processor_lto_device_link(clang, target):
    """Both families: the processor's runtime bitcode into the device link's LTO.

    NVPTX, as clang-linker-wrapper 19 links an image: its own LTO of the
    runtime member the cubins need, at -O2 with the member's PTX feature,
    ptxas -O2, and nvlink of that cubin ahead of the program's. Here
    clang-nvlink-wrapper does the LTO; the runtime goes first so that its
    definitions prevail over the weak copies the cubins hold (the in-process
    LTO does not count the cubins' definitions): the image is the same
    bytes. -O2 whatever the compiles' level: clang-linker-wrapper's
    default, which clang overrides only for an explicit -O. AMDGPU: lld's
    full LTO with the file after the objects, the processor from -mcpu
    (clang 19 passes -plugin-opt=mcpu= and a target ID's features itself:
    gfx90a:xnack+ gives e_flags 0x73f).
    """
    bitcode = _bitcode(clang, target)
    runtime = [bitcode] if bitcode else []
    if target.family.name == "amdgcn":
        return struct(
            flags = [
                "--target=" + target.triple,
                "-mcpu=" + target.target_id,
                "-flto",
                "-Wl,--no-undefined",
            ],
            trailing = ["-Xlinker", bitcode.path] if bitcode else [],
            runtime = runtime,
        )
    if target.family.name != "nvptx":
        return None
    flags = target.family.device_link_flags(clang, target, True) + [
        "-Xlinker",
        "--plugin-opt=O2",
        # (A separate argument: clang-nvlink-wrapper hands
        # --feature=+ptx63 on to nvlink.)
        "-Xlinker",
        "--feature",
        "-Xlinker",
        _DEVICE_RUNTIME_PTX_FEATURE,
    ]
    if bitcode:
        flags += ["-Xlinker", bitcode.path]

    # clang-nvlink-wrapper compiles what its LTO made with the CUDA
    # installation's ptxas before nvlink.
    if clang.cuda and clang.cuda.ptxas:
        runtime.append(clang.cuda.ptxas)
    return struct(flags = flags, trailing = [], runtime = runtime)

PER_PROCESSOR_LTO = struct(
    name = "per-processor-lto",
    has = _per_processor_has,
    missing = _per_processor_missing,
    nvptx_compile = _per_processor_nvptx_compile,
    device_link = _per_processor_lto_device_link,
)

# --- per-triple (LLVM 20 and later) ---

def _library(clang, target, name):
    """lib/<triple>/<name> of the LLVM, or None."""
    return clang.llvm.openmp_device_libraries.get(target.triple + "/" + name)

def _archive(clang, target):
    return _library(clang, target, "libompdevice.a")

def _nvptx_bitcode(clang, target):
    return _library(clang, target, "libomptarget-nvptx.bc")

def _per_triple_has(clang, target):
    if not _family(target) or not _archive(clang, target):
        return False
    return target.family.name != "nvptx" or _nvptx_bitcode(clang, target) != None

def _per_triple_missing(clang, target):
    llvm = clang.llvm
    wanted = ["libompdevice.a"] + (["libomptarget-nvptx.bc"] if target.family.name == "nvptx" else [])
    return ("OpenMP target %r: LLVM %s (%s) has no OpenMP device runtime for %s GPUs (lib/%s/%s); " % (
        target.name,
        llvm.version,
        llvm.clang.dirname,
        target.family.name,
        target.triple,
        " and ".join(wanted),
    ) + "install liboffload-%d-dev" % llvm.major)

def _per_triple_nvptx_compile(clang, target):
    # The file clang finds in lib/nvptx64-nvidia-cuda; named, it needs no
    # search path.
    bitcode = _nvptx_bitcode(clang, target)
    return ["--libomptarget-nvptx-bc-path=" + bitcode.path], [bitcode]

def _per_triple_device_link(clang, target):
    """Both families: the device runtime archive after the objects, as clang-linker-wrapper links it.

    clang-linker-wrapper runs `clang --target=<triple> -mcpu=|-march=<processor>
    [-flto -Wl,--no-undefined] <objects> -Xlinker -lompdevice`; the archive
    is named by its path instead, which needs no search path and links the
    same members. AMDGPU: lld's full LTO, the processor from -mcpu (no
    -plugin-opt needed since LLVM 17). NVPTX: the family's flags (nvlink,
    through clang-nvlink-wrapper, whose LTO compiles the members it takes
    with ptxas).
    """
    archive = _archive(clang, target)
    runtime = [archive] if archive else []
    if target.family.name == "amdgcn":
        flags = [
            "--target=" + target.triple,
            "-mcpu=" + target.target_id,
            "-flto",
            "-Wl,--no-undefined",
        ]
    elif target.family.name == "nvptx":
        flags = target.family.device_link_flags(clang, target, True)

        # clang-nvlink-wrapper compiles what its LTO made with the CUDA
        # installation's ptxas before nvlink.
        if clang.cuda and clang.cuda.ptxas:
            runtime.append(clang.cuda.ptxas)
    else:
        return None
    return struct(
        flags = flags,
        trailing = ["-Xlinker", archive.path] if archive else [],
        runtime = runtime,
    )

PER_TRIPLE = struct(
    name = "per-triple",
    has = _per_triple_has,
    missing = _per_triple_missing,
    nvptx_compile = _per_triple_nvptx_compile,
    device_link = _per_triple_device_link,
)

# --- none: an LLVM without a device runtime ---

def _none_has(_clang, _target):
    return False

def _none_missing(clang, target):
    llvm = clang.llvm
    return ("OpenMP target %r: LLVM %s (%s) has no OpenMP device runtime for %s GPUs " % (target.name, llvm.version, llvm.clang.dirname, target.family.name) +
            "(lib/libomptarget-%s-*.bc up to LLVM 19, lib/%s/libompdevice.a from LLVM 20 on); " % (_family(target), target.triple) +
            "install libomp-%d-dev (up to 19) or liboffload-%d-dev (from 20 on)" % (llvm.major, llvm.major))

NONE = struct(
    name = "",
    has = _none_has,
    missing = _none_missing,
    nvptx_compile = None,
    device_link = _per_processor_device_link,
)

_LAYOUTS = {layout.name: layout for layout in [PER_PROCESSOR, PER_PROCESSOR_LTO, PER_TRIPLE, NONE]}

def device_runtime_layout(llvm):
    """The layout of llvm's OpenMP device runtime (NONE when it has none).

    Args:
      llvm: OffloadLlvmInfo.

    Returns:
      PER_PROCESSOR, PER_PROCESSOR_LTO, PER_TRIPLE or NONE.
    """
    return _LAYOUTS[llvm.openmp_device_layout]
