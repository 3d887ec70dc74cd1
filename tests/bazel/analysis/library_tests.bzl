"""Analysis tests of offload_library: both halves, the cuid, CcInfo, modes, errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load(":helpers.bzl", _actions = "actions", _count = "count", _has = "has")

def _value(argv, prefix):
    for a in argv:
        if a.startswith(prefix):
            return a[len(prefix):]
    return None

def _after(argv, flag):
    """The argument after the last -Xclang <flag>."""
    for i in range(len(argv) - 3, -1, -1):
        if argv[i] == flag and argv[i + 1] == "-Xclang":
            return argv[i + 2]
    return None

def _links_all(env, cc_info, names):
    """Asserts that a binary over cc_info links each of names (basenames)."""
    libs = _libraries(cc_info)
    for want in names:
        if want not in libs:
            analysistest.fail(env, "CcInfo links %r, not %s" % (libs, want))

def _source(action):
    return action.argv[-1]

def _libraries(cc_info):
    """Basenames of the static and dynamic libraries and objects a binary links."""
    names = []
    for li in cc_info.linking_context.linker_inputs.to_list():
        for lib in li.libraries:
            for f in [lib.static_library, lib.pic_static_library, lib.dynamic_library]:
                if f and f.basename not in names:
                    names.append(f.basename)
            for o in (lib.objects or []) + (lib.pic_objects or []):
                if o.basename not in names:
                    names.append(o.basename)
    return names

def _link_flags(cc_info):
    flags = []
    for li in cc_info.linking_context.linker_inputs.to_list():
        flags += li.user_link_flags
    return flags

def _halves_agree(env):
    """Each host compile gets its own source's fat binary, with its cuid.

    CUDA: the host compile embeds it. HIP: the host compile has neither the
    fat binary nor the targets, and an OffloadHipFatbinObject with the same
    cuid puts the fat binary in an object of its own.
    """
    compiles = _actions(env, "OffloadCompile")
    objects = _actions(env, "OffloadHipFatbinObject")
    for host in _actions(env, "OffloadHostCompile"):
        src = _source(host)
        cuid = _value(host.argv, "-cuid=")
        device = [a for a in compiles if _source(a) == src]
        if not device:
            analysistest.fail(env, "no device compile of %s" % src)
        for a in device:
            asserts.equals(env, cuid, _value(a.argv, "-cuid="), "cuid of %s, device and host" % src)
        for arg in ["--offload-host-only", "-c", "-fPIC"]:
            _has(env, host.argv, arg, "host compile")
        stem = src.rpartition("/")[2].rpartition(".")[0]
        embedded = _after(host.argv, "-fcuda-include-gpubinary")
        if "hip" in host.argv:
            mine = [o for o in objects if _value(o.argv, "--cuid=") == cuid]
            if embedded or len(mine) != 1:
                analysistest.fail(env, "HIP host compile of %s embeds %r; fat binary objects with its cuid: %d" % (src, embedded, len(mine)))
                continue
            fatbin = mine[0].argv[-1]
            inputs = [f.path for f in host.inputs.to_list()]
            if not fatbin.rpartition("/")[2].startswith(stem + ".") or fatbin in inputs:
                analysistest.fail(env, "fat binary object of %s holds %r (a host compile input: %s)" % (src, fatbin, fatbin in inputs))
            for a in host.argv:
                if a.startswith("--offload-arch"):
                    analysistest.fail(env, "HIP host compile of %s names targets: %r" % (src, a))
            continue
        if not embedded or not embedded.rpartition("/")[2].startswith(stem + "."):
            analysistest.fail(env, "host compile of %s embeds %r" % (src, embedded))
        if embedded not in [f.path for f in host.inputs.to_list()]:
            analysistest.fail(env, "the embedded fat binary %s is not an input" % embedded)

def _hip_library_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 6)  # 2 sources x 3 targets
    _count(env, "OffloadBundle", 2)
    _count(env, "OffloadHostCompile", 2)
    _count(env, "OffloadHipFatbinObject", 2)
    _count(env, "OffloadDeviceLink", 0)
    _halves_agree(env)
    for b in _actions(env, "OffloadBundle"):
        _has(env, b.argv, "-bundle-align=4096", "HIP fat binary")
        targets = _value(b.argv, "-targets=")
        asserts.equals(env, "host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx1030," +
                            "hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", targets)
    for h in _actions(env, "OffloadHostCompile"):
        for arg in [
            "-x",
            "hip",
            "--rocm-path=external/offload_rocm",
            "-mcode-object-version=5",
            "-D__AMDGCN_WAVEFRONT_SIZE=64",
            "-DSCALE=2",
        ]:
            _has(env, h.argv, arg, "HIP host compile")

        # hip.bc is device code: never linked into the host half.
        if "-mlink-builtin-bitcode" in h.argv:
            analysistest.fail(env, "HIP host compile links device bitcode: %r" % h.argv)

    # ROCm 5's hip.bc (barriers, fences) in every device compile.
    for c in _actions(env, "OffloadCompile"):
        i = c.argv.index("-mlink-builtin-bitcode") if "-mlink-builtin-bitcode" in c.argv else -1
        if i < 1 or c.argv[i - 1] != "-Xclang" or c.argv[i + 2] != "external/offload_rocm/amdgcn/bitcode/hip.bc":
            analysistest.fail(env, "HIP device compile does not link hip.bc: %r" % c.argv)
    info = analysistest.target_under_test(env)[CcInfo]

    # The runtime under its soname (ROCm 5's), the file the program's loader
    # looks for in the solib directory Bazel ships beside it.
    _links_all(env, info, ["a.o", "a.hipfb.o", "b.o", "b.hipfb.o", "libamdhip64.so.5"])
    headers = [f.basename for f in info.compilation_context.headers.to_list()]
    if "dep.h" not in headers:
        analysistest.fail(env, "hdrs not public: %r" % headers)
    if "SCALE=2" not in info.compilation_context.defines.to_list():
        analysistest.fail(env, "defines not public")
    return analysistest.end(env)

hip_library_test = analysistest.make(_hip_library_test)

def _cuda_library_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 2)
    _count(env, "OffloadFatbinary", 1)
    _count(env, "OffloadHostCompile", 1)
    _count(env, "OffloadHipFatbinObject", 0)
    _halves_agree(env)
    _offload_fatbin(env, ["--image3=kind=elf,sm=70,file", "--image3=kind=ptx,sm=90,file"], "_offload/cuda_lib/saxpy.fatbin")
    for h in _actions(env, "OffloadHostCompile"):
        for arg in ["-x", "cuda", "--offload-arch=sm_70", "--offload-arch=sm_90", "--cuda-path=external/offload_cuda"]:
            _has(env, h.argv, arg, "CUDA host compile")
    info = analysistest.target_under_test(env)[CcInfo]
    if "libcudart_static.a" not in _libraries(info):
        analysistest.fail(env, "cudart_static not linked: %r" % _libraries(info))
    flags = _link_flags(info)
    for f in ["-ldl", "-lrt", "-lpthread"]:
        if f not in flags:
            analysistest.fail(env, "%s not in the link flags %r" % (f, flags))
    return analysistest.end(env)

cuda_library_test = analysistest.make(_cuda_library_test)

def _cuda_arch_list_test(ctx):
    """Every CUDA device compile sees the library's whole __CUDA_ARCH_LIST__.

    The host compile gets it from clang's driver (all --offload-arch flags);
    each per-target device compile must get the same, or CUB's kernels,
    named after the list, are registered under names no image has.
    """
    env = analysistest.begin(ctx)
    compiles = _actions(env, "OffloadCompile")
    if not compiles:
        analysistest.fail(env, "no OffloadCompile")
    for a in compiles:
        defines = [x for x in a.argv if x.startswith("-D__CUDA_ARCH_LIST__=")]
        asserts.equals(env, ["-D__CUDA_ARCH_LIST__=" + ctx.attr.arch_list], defines, "__CUDA_ARCH_LIST__ of " + _source(a))
        undef = a.argv.index("-U__CUDA_ARCH_LIST__") if "-U__CUDA_ARCH_LIST__" in a.argv else -1
        if undef < 0 or undef > a.argv.index(defines[0] if defines else "-U__CUDA_ARCH_LIST__"):
            analysistest.fail(env, "-U__CUDA_ARCH_LIST__ missing or after the -D: %r" % a.argv)
    return analysistest.end(env)

cuda_arch_list_test = analysistest.make(
    _cuda_arch_list_test,
    attrs = {"arch_list": attr.string(mandatory = True)},
)

def _offload_fatbin(env, images, out):
    """Asserts one OffloadFatbinary: `offload fatbin` with clang's fatbinary command line, no NVIDIA tool in it.

    Args:
      env: the analysis test environment.
      images: the --image3 options without their files, in clang's order.
      out: how the output path ends.
    """
    fb = _actions(env, "OffloadFatbinary")
    asserts.equals(env, 1, len(fb), "number of OffloadFatbinary actions")
    if not fb:
        return
    argv = fb[0].argv
    asserts.equals(env, ["fatbin", "-64", "--create"], argv[1:4], "offload fatbin with fatbinary's own arguments")
    asserts.true(env, argv[4].endswith(out), "the fat binary is %s, not %s" % (argv[4], out))
    asserts.equals(env, images, [a.rpartition("=")[0] for a in argv[5:] if a.startswith("--image3=")], "images in clang's order")
    asserts.equals(env, [], [a for a in argv[5:] if not a.startswith("--image3=") and not a.startswith("--cuda-version=")], "no other options")
    _no_nvidia_tool(env, fb[0])

def _no_nvidia_tool(env, action):
    """Asserts that an action runs and reads no NVIDIA program (fatbinary, nvlink, ptxas)."""
    for f in (action.argv or [])[:1] + [i.path for i in action.inputs.to_list()]:
        if f.rpartition("/")[2] in ("fatbinary", "nvlink", "ptxas"):
            analysistest.fail(env, "%s runs or reads %s" % (action.mnemonic, f))

def _cuda_ptx_only_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 1)
    _offload_fatbin(env, ["--image3=kind=ptx,sm=90,file"], "_offload/cuda_ptx_only/saxpy.fatbin")
    for a in analysistest.target_actions(env):
        _no_nvidia_tool(env, a)
    return analysistest.end(env)

# A PTX-only CUDA library analyses with a CUDA installation that has no
# NVIDIA program at all, and none of its actions needs one.
cuda_ptx_only_test = analysistest.make(_cuda_ptx_only_test)

def _cuda_arch_specific_test(ctx):
    env = analysistest.begin(ctx)
    _offload_fatbin(env, ["--image3=kind=elf,sm=90,file", "--image3=kind=elf,sm=90a,file", "--image3=kind=ptx,sm=90a,file"], "_offload/cuda_hopper/saxpy.fatbin")
    fb = _actions(env, "OffloadFatbinary")
    if fb and "--cuda-version=12.4" not in fb[0].argv:
        analysistest.fail(env, "no --cuda-version=12.4 (CUDA 11.8's bytes have no sm_90a): %r" % fb[0].argv)
    for h in _actions(env, "OffloadHostCompile"):
        for arg in ["--offload-arch=sm_90", "--offload-arch=sm_90a"]:
            _has(env, h.argv, arg, "CUDA host compile")
    return analysistest.end(env)

# sm_90a beside sm_90: the fat binary's command line names it as clang's does.
cuda_arch_specific_test = analysistest.make(_cuda_arch_specific_test)

def _cuda_device_link_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadDeviceLink", 2)
    _offload_fatbin(env, ["--image3=kind=elf,sm=70,file", "--image3=kind=elf,sm=90,file"], "_offload/cuda_rdc_link/cuda_rdc_link.fatbin")

    # -c opt's --gc-sections would let lld drop the host objects' offload
    # entries, found only through __start_/__stop_ of their section.
    flags = _link_flags(analysistest.target_under_test(env)[CcInfo])
    if "-Wl,--no-gc-sections" not in flags:
        analysistest.fail(env, "-Wl,--no-gc-sections not in the device link's link flags %r" % flags)
    return analysistest.end(env)

# The device link's fat binary of the linked cubins is `offload fatbin`'s;
# programs that link it keep every section (the offload entries).
cuda_device_link_test = analysistest.make(_cuda_device_link_test)

def _cudart_shared_test(ctx):
    env = analysistest.begin(ctx)
    libs = _libraries(analysistest.target_under_test(env)[CcInfo])

    # Under its soname (CUDA 11's), as the HIP runtime above.
    if "libcudart.so.11.0" not in libs or "libcudart_static.a" in libs:
        analysistest.fail(env, "runtime = \"shared\" links %r" % libs)
    return analysistest.end(env)

cudart_shared_test = analysistest.make(_cudart_shared_test)

def _mode_flag_test(ctx):
    env = analysistest.begin(ctx)
    for m in ["OffloadCompile", "OffloadHostCompile"]:
        for a in _actions(env, m):
            _has(env, a.argv, ctx.attr.flag, "%s under this compilation mode" % m)
    return analysistest.end(env)

library_opt_test = analysistest.make(
    _mode_flag_test,
    attrs = {"flag": attr.string(default = "-O2")},
    config_settings = {"//command_line_option:compilation_mode": "opt"},
)

library_dbg_test = analysistest.make(
    _mode_flag_test,
    attrs = {"flag": attr.string(default = "-g")},
    config_settings = {"//command_line_option:compilation_mode": "dbg"},
)

def _hip_new_driver_library_test(ctx):
    """clang 23: per (target, source) LTO bitcode and a device link, bundled as clang's new driver does."""
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 6)  # 2 sources x 3 targets
    _count(env, "OffloadDeviceLink", 6)
    _count(env, "OffloadBundle", 2)
    _count(env, "OffloadHipFatbinObject", 2)
    for c in _actions(env, "OffloadCompile"):
        for arg in ["--offload-device-only", "-emit-llvm", "-foffload-lto=full"]:
            _has(env, c.argv, arg, "clang-23 HIP device compile")
        if "-fgpu-rdc" in c.argv:
            analysistest.fail(env, "a whole-program device compile is relocatable: %r" % c.argv)
    for a in _actions(env, "OffloadDeviceLink"):
        for arg in ["--target=amdgcn-amd-amdhsa", "-flto", "-Wl,--no-undefined"]:
            _has(env, a.argv, arg, "clang-23 HIP device link")
        objs = [x for x in a.argv if x.endswith(".lto.o")]
        asserts.equals(env, 1, len(objs), "one source's bitcode per link: %r" % a.argv)
    for b in _actions(env, "OffloadBundle"):
        _has(env, b.argv, "-bundle-align=4096", "HIP fat binary")
        asserts.equals(env, "host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+," +
                            "hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx1030", _value(b.argv, "-targets="))
    return analysistest.end(env)

hip_new_driver_library_test = analysistest.make(_hip_new_driver_library_test)

def _rdc_library_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 2)
    _count(env, "OffloadHostCompile", 1)
    _count(env, "OffloadBundle", 0)
    _count(env, "OffloadFatbinary", 0)
    _count(env, "OffloadHipFatbinObject", 0)
    for a in _actions(env, "OffloadCompile") + _actions(env, "OffloadHostCompile"):
        for arg in ["-fgpu-rdc", "--offload-new-driver"]:
            _has(env, a.argv, arg, "RDC " + a.mnemonic)
    for a in _actions(env, "OffloadHostCompile"):
        if _after(a.argv, "-fcuda-include-gpubinary"):
            analysistest.fail(env, "an RDC host compile embeds a fat binary")
    return analysistest.end(env)

rdc_library_test = analysistest.make(_rdc_library_test)

def _rdc_link_test(ctx):
    env = analysistest.begin(ctx)
    links = _actions(env, "OffloadDeviceLink")
    asserts.equals(env, 2, len(links), "one device link per target")
    for a in links:
        # Both libraries' device objects, the dependent's first, in one LTO link.
        objs = [x.rpartition("/")[2] for x in a.argv if x.endswith(".rdc.o")]
        asserts.equals(env, ["k.rdc.o", "a.rdc.o"], objs, "device objects of %s" % a.argv)
        _has(env, a.argv, "-flto", "AMDGPU device link")
    _count(env, "OffloadBundle", 1)
    _count(env, "OffloadWrap", 1)
    b = _actions(env, "OffloadBundle")
    if b:
        asserts.equals(
            env,
            "host-x86_64-unknown-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
            _value(b[0].argv, "-targets="),
            "the new driver's entry kind",
        )
    return analysistest.end(env)

rdc_link_test = analysistest.make(_rdc_link_test)

def _failure_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

# Analysis fails with a message that contains `message`.
failure_test = analysistest.make(
    _failure_test,
    attrs = {"message": attr.string(mandatory = True)},
    expect_failure = True,
)

def _openmp_library_test(ctx):
    env = analysistest.begin(ctx)

    # Device and host halves in one action: clang names offload entries
    # after the source file's inode, which separate actions may not share.
    _count(env, "OffloadCompile", 0)
    _count(env, "OffloadHostCompile", 0)
    _count(env, "OffloadOpenMPCompile", 1)
    for a in _actions(env, "OffloadOpenMPCompile"):
        for arg in ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "--offload-device-only", "--offload-host-only", "-c", "-fPIC"]:
            _has(env, a.argv, arg, "OpenMP compile")
        outs = sorted([f.basename for f in a.outputs.to_list()])
        asserts.equals(env, ["k.o", "k.pic.o"], outs, "the device object and the host object")
        for a2 in a.argv:
            if a2.startswith("-cuid=") or a2.startswith("--offload-arch") or a2 == "-fgpu-rdc":
                analysistest.fail(env, "OpenMP compile has %r" % a2)
    _links_all(env, analysistest.target_under_test(env)[CcInfo], ["k.o", "libomp.so.5", "libomptarget.so.16"])
    return analysistest.end(env)

openmp_library_test = analysistest.make(_openmp_library_test)

def _openmp_device_link_test(ctx):
    env = analysistest.begin(ctx)
    links = _actions(env, "OffloadDeviceLink")
    asserts.equals(env, 1, len(links), "one device link per target")
    for a in links:
        for arg in ["--target=x86_64-pc-linux-gnu", "-shared"]:
            _has(env, a.argv, arg, "host-CPU device link")
        objs = [x.rpartition("/")[2] for x in a.argv if x.endswith(".pic.o")]
        asserts.equals(env, ["k.pic.o", "omp_a.pic.o"], objs, "device objects of %s" % a.argv)

        # ".o": offload packager records IMG_Object, as clang-linker-wrapper 16.
        out = a.outputs.to_list()[0].basename
        asserts.true(env, out.endswith(".o"), "linked image %s: the packager takes its image kind from .o" % out)
    _count(env, "OffloadPackage", 1)
    for a in _actions(env, "OffloadWrap"):
        # clang-16's host objects: the legacy entries of libomptarget 16.
        for arg in ["--kind=openmp", "--entries=legacy"]:
            _has(env, a.argv, arg, "OpenMP registration")
    _count(env, "OffloadWrap", 1)
    return analysistest.end(env)

openmp_device_link_test = analysistest.make(_openmp_device_link_test)

def _host_triple_test(ctx):
    env = analysistest.begin(ctx)
    b = _actions(env, "OffloadBundle")
    asserts.equals(env, 1, len(b), "one bundle")
    if b:
        targets = _value(b[0].argv, "-targets=")
        asserts.equals(env, "host-x86_64-pc-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906", targets)
    return analysistest.end(env)

host_triple_test = analysistest.make(_host_triple_test)
