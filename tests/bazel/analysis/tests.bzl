"""Analysis tests of rules_offload: actions, argument lists, providers, errors.

Each test looks at one fixture target in analysis/BUILD.bazel (tagged
manual, so only the tests build it) and checks one behaviour.
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load(
    "@rules_offload//rules:defs.bzl",
    "OffloadBundleInfo",
    "OffloadDeviceArchiveInfo",
    "OffloadPackageInfo",
)
load(":helpers.bzl", _actions = "actions", _count = "count", _has = "has")

# --- helpers -----------------------------------------------------------------

def _flag(argv, prefix):
    """The first argument starting with prefix, or None."""
    for a in argv:
        if a.startswith(prefix):
            return a
    return None

def _lacks(env, argv, arg, what):
    if arg in argv:
        analysistest.fail(env, "%s: %r unexpectedly in %r" % (what, arg, argv))

def _compile_for(env, target_id):
    for a in _actions(env, "OffloadCompile"):
        if "--offload-arch=" + target_id in a.argv:
            return a
    analysistest.fail(env, "no OffloadCompile action for %s" % target_id)
    return None

def _input_paths(action):
    return {f.path: True for f in action.inputs.to_list()}

def _has_inputs(env, action, paths):
    have = _input_paths(action)
    for p in paths:
        if p not in have:
            analysistest.fail(env, "%s: %s is not an input" % (action.mnemonic, p))

def _lacks_inputs(env, action, prefix, what):
    for p in _input_paths(action):
        if p.startswith(prefix):
            analysistest.fail(env, "%s: %s is an input" % (what, p))

def _hermetic(env, mnemonics):
    """No argument but argv[0] is absolute, and path mapping is on."""
    for a in analysistest.target_actions(env):
        if a.mnemonic not in mnemonics:
            continue
        for arg in a.argv[1:]:
            value = arg.partition("=")[2] if arg.startswith("-") and "=" in arg else arg
            if value.startswith("/"):
                analysistest.fail(env, "%s argument %r is an absolute path" % (a.mnemonic, arg))
            if "sandbox" in arg or "execroot" in arg:
                analysistest.fail(env, "%s argument %r names the sandbox or execroot" % (a.mnemonic, arg))
        _path_mapping(env, a, "1")

def _path_mapping(env, action, want):
    # Action.execution_info exists from Bazel 5; on 4.2 run.sh checks the
    # same through aquery's ExecutionInfo.
    info = getattr(action, "execution_info", None)
    if info != None:
        asserts.equals(env, want, info.get("supports-path-mapping"), "%s supports-path-mapping" % action.mnemonic)

_ALL = ["OffloadCompile", "OffloadDeviceLink", "OffloadBundle", "OffloadPackage", "OffloadUnbundleArchive", "OffloadWrap"]

# --- HIP fat binary ----------------------------------------------------------

def _hip_actions_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 3)
    _count(env, "OffloadDeviceLink", 0)
    _count(env, "OffloadBundle", 1)
    return analysistest.end(env)

hip_actions_test = analysistest.make(_hip_actions_test)

def _hip_compile_args_test(ctx):
    env = analysistest.begin(ctx)
    a = _compile_for(env, "gfx90a:xnack+")
    if a:
        asserts.equals(env, "external/offload_llvm/bin/clang", a.argv[0], "clang from the LLVM repository")
        for arg in [
            "-x",
            "hip",
            "--offload-device-only",
            "--no-gpu-bundle-output",
            "-c",
            "-fdebug-compilation-dir=.",
            # The SDK, by paths that come from the repositories' labels.
            "-no-canonical-prefixes",
            "--rocm-path=external/offload_rocm",
            "--hip-path=external/offload_rocm",
            # The declared HIP headers before /usr/include's (Debian's).
            "external/offload_rocm/include",
            "--rocm-device-lib-path=external/offload_rocm/amdgcn/bitcode",
            # ROCm 5.2's device libraries stop at code object version 5.
            "-mcode-object-version=5",
            # gfx90a is a wave64 processor.
            "-D__AMDGCN_WAVEFRONT_SIZE=64",
        ]:
            _has(env, a.argv, arg, "gfx90a compile")
        _lacks(env, a.argv, "-nogpulib", "real programs link the device libraries")
        _has(env, a.argv, "-DSCALE=2", "defines")
        _has(env, a.argv, "-O3", "copts")
        if not _flag(a.argv, "-cuid="):
            analysistest.fail(env, "no -cuid: the compilation unit ID would depend on the path")

        # A compile knows only its own target: adding a target to the list
        # leaves the other targets' command lines (and cache keys) unchanged.
        for other in ["gfx906", "gfx1030"]:
            for arg in a.argv:
                if other in arg:
                    analysistest.fail(env, "gfx90a compile mentions %s: %r" % (other, arg))
        outs = [f.short_path for f in a.outputs.to_list()]
        asserts.equals(env, ["analysis/_offload/hip_fatbin/gfx90a_xnack+/k.o"], outs, "output path keyed by target")

        # Every file clang reads is an input: the driver, the LLVM libraries
        # it loads, lld, the resource headers, the HIP headers, the device
        # libraries and the HIP version file.
        _has_inputs(env, a, [
            "external/offload_llvm/bin/clang",
            "external/offload_llvm/bin/lld",
            "external/offload_llvm/lib/libLLVM.so.22.1",
            "external/offload_llvm/lib/libclang-cpp.so.22.1",
            "external/offload_llvm/lib/clang/22/include/__clang_hip_runtime_wrapper.h",
            "external/offload_rocm/include/hip/hip_runtime.h",
            "external/offload_rocm/amdgcn/bitcode/ocml.bc",
            "external/offload_rocm/amdgcn/bitcode/oclc_isa_version_90a.bc",
            "external/offload_rocm/share/hip/version",
        ])
        _lacks_inputs(env, a, "external/offload_cuda/", "a HIP compile reads nothing of CUDA")

    # gfx1030 is wave32: the define follows the processor.
    b = _compile_for(env, "gfx1030")
    if b:
        _has(env, b.argv, "-D__AMDGCN_WAVEFRONT_SIZE=32", "gfx1030 compile")
    return analysistest.end(env)

hip_compile_args_test = analysistest.make(_hip_compile_args_test)

def _hip_bundle_args_test(ctx):
    env = analysistest.begin(ctx)
    bundles = _actions(env, "OffloadBundle")
    if len(bundles) == 1:
        argv = bundles[0].argv
        asserts.equals(env, "bundler", argv[1], "offload subcommand")
        _has(env, argv, "-type=o", "bundle")
        _has(env, argv, "-bundle-align=4096", "HIP code objects are 4096-aligned, as clang does")

        # Host entry first, then devices sorted by bundle ID (not BUILD order).
        _has(
            env,
            argv,
            "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx1030," +
            "hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
            "bundle",
        )
        inputs = [a for a in argv if a.startswith("-input=")]
        asserts.equals(env, 4, len(inputs), "one input per entry")
        asserts.true(env, inputs[0].endswith("/host.empty"), "empty host entry first: %s" % inputs[0])
        asserts.true(env, inputs[2].endswith("/gfx906/k.o"), "inputs follow -targets order: %s" % inputs)
        _lacks(env, argv, "-compress", "uncompressed by default")
    _hermetic(env, _ALL)
    return analysistest.end(env)

hip_bundle_args_test = analysistest.make(_hip_bundle_args_test)

def _hip_providers_test(ctx):
    env = analysistest.begin(ctx)
    t = analysistest.target_under_test(env)
    info = t[OffloadBundleInfo]
    asserts.equals(env, "o", info.type)
    asserts.equals(env, "hip", info.offload_kind)
    asserts.equals(env, 4096, info.align)
    asserts.equals(env, None, info.host)
    asserts.equals(env, "hip_fatbin.hipfb", info.bundle.basename)
    asserts.equals(
        env,
        ["hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"],
        [i.bundle_id for i in info.images],
    )
    asserts.equals(env, ["gfx1030", "gfx906", "gfx90a:xnack+"], [i.target for i in info.images])
    asserts.equals(env, ["object"] * 3, [i.image_kind for i in info.images])
    asserts.equals(env, ["amdgcn-amd-amdhsa"] * 3, [i.triple for i in info.images])
    asserts.equals(env, ["compile"] * 3, [i.producer for i in info.images])
    groups = t[OutputGroupInfo]
    asserts.equals(env, 3, len(groups.device_images.to_list()))
    asserts.equals(env, 3, len(groups.object.to_list()))
    asserts.equals(env, ["k.o"], [f.basename for f in getattr(groups, "target_gfx90a_xnack+").to_list()])
    asserts.equals(env, ["hip_fatbin.hipfb"], [f.basename for f in t[DefaultInfo].files.to_list()])
    return analysistest.end(env)

hip_providers_test = analysistest.make(_hip_providers_test)

# --- several sources: relocatable compiles and a device link per target ------

def _hip_rdc_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 6)
    _count(env, "OffloadDeviceLink", 3)
    _count(env, "OffloadBundle", 1)
    for a in _actions(env, "OffloadCompile"):
        _has(env, a.argv, "-fgpu-rdc", "relocatable device code")
    for a in _actions(env, "OffloadDeviceLink"):
        _has(env, a.argv, "--target=amdgcn-amd-amdhsa", "device link")
        asserts.equals(env, 2, len([f for f in a.inputs.to_list() if f.basename.endswith(".rdc.bc")]), "two objects per link")
    link = [a for a in _actions(env, "OffloadDeviceLink") if "-mcpu=gfx90a:xnack+" in a.argv]
    asserts.equals(env, 1, len(link), "one link for gfx90a:xnack+ with its features")
    _hermetic(env, _ALL)
    return analysistest.end(env)

hip_rdc_test = analysistest.make(_hip_rdc_test)

# --- the targets build setting ------------------------------------------------

def _targets_flag_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 2)
    _compile_for(env, "gfx908")
    _compile_for(env, "gfx1030")
    return analysistest.end(env)

targets_flag_test = analysistest.make(
    _targets_flag_test,
    config_settings = {"@rules_offload//rules:targets": ["gfx908", "gfx1030"]},
)

def _targets_attr_wins_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 3)
    return analysistest.end(env)

targets_attr_wins_test = analysistest.make(
    _targets_attr_wins_test,
    config_settings = {"@rules_offload//rules:targets": ["gfx942"]},
)

# --- compressed bundles, text bundles, host objects -----------------------------

def _compressed_test(ctx):
    env = analysistest.begin(ctx)
    b = _actions(env, "OffloadBundle")
    if b:
        _has(env, b[0].argv, "-compress", "compress = True")
    asserts.true(env, analysistest.target_under_test(env)[OffloadBundleInfo].compressed)
    return analysistest.end(env)

compressed_test = analysistest.make(_compressed_test)

def _text_bundle_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 2)
    for a in _actions(env, "OffloadCompile"):
        _has(env, a.argv, "-S", "IR is text")
        _has(env, a.argv, "-emit-llvm", "IR")
    b = _actions(env, "OffloadBundle")
    if b:
        _has(env, b[0].argv, "-type=ll", "text bundle")
        _has(env, b[0].argv, "-targets=host-x86_64-unknown-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "IR entries are hip, not hipv4")
        if _flag(b[0].argv, "-bundle-align"):
            analysistest.fail(env, "text bundles take no alignment")
    info = analysistest.target_under_test(env)[OffloadBundleInfo]
    asserts.equals(env, ["llvm-ir", "llvm-ir"], [i.image_kind for i in info.images])
    asserts.equals(env, "hip_ir.ll", info.bundle.basename)
    return analysistest.end(env)

text_bundle_test = analysistest.make(_text_bundle_test)

def _host_object_test(ctx):
    env = analysistest.begin(ctx)
    b = _actions(env, "OffloadBundle")
    if b:
        argv = b[0].argv
        _has(env, argv, "-targets=host-x86_64-pc-linux-gnu-,openmp-amdgcn-amd-amdhsa--gfx906", "openmp entries")
        inputs = [a for a in argv if a.startswith("-input=")]
        asserts.true(env, inputs[0].endswith("analysis/host.o"), "host object first: %s" % inputs)
    info = analysistest.target_under_test(env)[OffloadBundleInfo]
    asserts.equals(env, "host.o", info.host.basename)
    asserts.equals(env, "omp_with_host.o", info.bundle.basename)
    asserts.equals(env, ["bitcode"], [i.image_kind for i in info.images])
    return analysistest.end(env)

host_object_test = analysistest.make(_host_object_test)

def _prebuilt_images_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 1)
    info = analysistest.target_under_test(env)[OffloadBundleInfo]
    asserts.equals(env, ["gfx1030", "gfx906"], [i.target for i in info.images])
    asserts.equals(env, ["compile", "prebuilt"], [i.producer for i in info.images])
    return analysistest.end(env)

prebuilt_images_test = analysistest.make(_prebuilt_images_test)

# --- CUDA and OpenMP packages ----------------------------------------------------

def _cuda_package_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 2)
    _count(env, "OffloadPackage", 1)
    a = _compile_for(env, "sm_70")
    if a:
        for arg in ["-x", "cuda", "-S", "--offload-device-only", "--cuda-path=external/offload_cuda", "-Wno-unknown-cuda-version", "external/offload_cuda/include"]:
            _has(env, a.argv, arg, "PTX compile")
        _lacks(env, a.argv, "-c", "PTX needs no ptxas")
        _lacks(env, a.argv, "--ptxas-path=external/offload_cuda/bin/ptxas", "PTX needs no ptxas")
        _has_inputs(env, a, [
            "external/offload_cuda/include/cuda_runtime.h",
            "external/offload_cuda/include/crt/host_config.h",
            "external/offload_cuda/nvvm/libdevice/libdevice.10.bc",
        ])
        _lacks_inputs(env, a, "external/offload_rocm/", "a CUDA compile reads nothing of ROCm")
    p = _actions(env, "OffloadPackage")
    if p:
        argv = p[0].argv
        asserts.equals(env, "packager", argv[1])
        images = [x for x in argv if x.startswith("--image=")]
        asserts.equals(env, 2, len(images))
        asserts.true(env, images[0].startswith("--image=file=bazel-out/"), images[0])
        asserts.true(env, images[0].endswith("/sm_70/saxpy.s,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda"), images[0])
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["ptx", "ptx"], [i.image_kind for i in info.images])
    asserts.equals(env, ["", ""], [i.bundle_id for i in info.images])
    asserts.equals(env, None, info.embedded)
    _hermetic(env, _ALL)
    return analysistest.end(env)

cuda_package_test = analysistest.make(_cuda_package_test)

def _ptx_target_test(ctx):
    env = analysistest.begin(ctx)
    a = _compile_for(env, "sm_90")
    if a:
        _has(env, a.argv, "-S", "compute_90 is PTX")
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["compute_90"], [i.target for i in info.images])
    asserts.equals(env, ["sm_90"], [i.processor for i in info.images])
    return analysistest.end(env)

ptx_target_test = analysistest.make(_ptx_target_test)

def _cubin_with_ptxas_test(ctx):
    env = analysistest.begin(ctx)
    a = _compile_for(env, "sm_90")
    if a:
        _has(env, a.argv, "-c", "a cubin")
        _has(env, a.argv, "--ptxas-path=/opt/cuda/bin/ptxas", "ptxas from the toolchain")
        asserts.equals(env, "/usr/bin/clang-22", a.argv[0])
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["cubin"], [i.image_kind for i in info.images])
    return analysistest.end(env)

cubin_with_ptxas_test = analysistest.make(_cubin_with_ptxas_test)

def _openmp_cpu_test(ctx):
    env = analysistest.begin(ctx)
    a = _actions(env, "OffloadCompile")
    asserts.equals(env, 1, len(a))
    if a:
        asserts.equals(env, "/usr/bin/clang-16", a[0].argv[0], "the compiler attribute overrides the toolchain")
        for arg in ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "--offload-device-only", "-c"]:
            _has(env, a[0].argv, arg, "OpenMP host-CPU device compile")
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["object"], [i.image_kind for i in info.images])
    asserts.equals(env, ["openmp-x86_64-pc-linux-gnu-"], [i.bundle_id for i in info.images])
    p = _actions(env, "OffloadPackage")
    if p:
        images = [x for x in p[0].argv if x.startswith("--image=")]
        asserts.true(env, images[0].endswith(",triple=x86_64-pc-linux-gnu,kind=openmp"), images[0])
    return analysistest.end(env)

openmp_cpu_test = analysistest.make(_openmp_cpu_test)

def _label_clang_test(ctx):
    env = analysistest.begin(ctx)
    a = _actions(env, "OffloadCompile")
    if a:
        asserts.true(env, a[0].argv[0].endswith("analysis/fake_clang.sh"), "clang by label: %s" % a[0].argv[0])
        names = [f.basename for f in a[0].inputs.to_list()]
        asserts.true(env, "fake_clang.sh" in names, "a labelled clang is an action input: %s" % names)
        asserts.true(env, "fake_resource.txt" in names, "toolchain data are inputs: %s" % names)
    return analysistest.end(env)

label_clang_test = analysistest.make(_label_clang_test)

def _deps_test(ctx):
    env = analysistest.begin(ctx)
    a = _actions(env, "OffloadCompile")
    if a:
        argv = a[0].argv
        _has(env, argv, "-DFROM_DEP=1", "defines of deps")

        # cc_library's include directories: the workspace root and the bin
        # directory as -iquote, `includes` in both trees as -isystem.
        pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]
        bin = analysistest.target_bin_dir_path(env)
        for pair in [
            ("-iquote", "."),
            ("-iquote", bin),
            ("-isystem", "analysis/dep_include"),
            ("-isystem", bin + "/analysis/dep_include"),
        ]:
            if pair not in pairs:
                analysistest.fail(env, "cc_library's %s %s missing from %r" % (pair[0], pair[1], argv))
        names = [f.basename for f in a[0].inputs.to_list()]
        asserts.true(env, "dep.h" in names, "headers of deps are inputs: %s" % names)
        _path_mapping(env, a[0], None)
    return analysistest.end(env)

deps_test = analysistest.make(_deps_test)

# --- device archives and wrappers --------------------------------------------------

def _device_archive_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadUnbundleArchive", 1)
    archives = [
        a
        for a in analysistest.target_actions(env)
        if a.mnemonic in ("CppArchive", "CppLink") and a.outputs.to_list()[0].basename == "libdevlib.a"
    ]
    asserts.equals(env, 1, len(archives), "the C++ toolchain's archiver makes lib<name>.a (CppLink on 4.2, CppArchive on 7)")
    a = _actions(env, "OffloadUnbundleArchive")
    if a:
        argv = a[0].argv
        for arg in ["bundler", "-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a:xnack+"]:
            _has(env, argv, arg, "unbundle archive")
        outs = [x for x in argv if x.startswith("-output=")]
        asserts.equals(env, 2, len(outs))
        asserts.true(env, outs[0].endswith("/gfx906/libdevlib.a"), outs[0])
    t = analysistest.target_under_test(env)
    info = t[OffloadDeviceArchiveInfo]
    asserts.equals(env, "libdevlib.a", info.archive.basename)
    asserts.equals(env, ["gfx906", "gfx90a:xnack+"], sorted(info.per_target.keys()))
    asserts.true(env, CcInfo in t, "the archive links as a static library")
    _hermetic(env, ["OffloadUnbundleArchive"])
    return analysistest.end(env)

device_archive_test = analysistest.make(_device_archive_test)

def _wrapper_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadWrap", 1)
    a = _actions(env, "OffloadWrap")
    if a:
        argv = a[0].argv
        for arg in ["wrap", "--kind=hip", "--emit=c"]:
            _has(env, argv, arg, "wrap")
        asserts.true(env, argv[-1].endswith("analysis/hip_fatbin.hipfb"), "the bundle is the input: %s" % argv[-1])
    t = analysistest.target_under_test(env)
    libs = [lib for li in t[CcInfo].linking_context.linker_inputs.to_list() for lib in li.libraries]
    asserts.equals(env, 1, len(libs))
    asserts.true(env, libs[0].alwayslink, "registration objects must not be dropped by the linker")
    compiles = [x for x in analysistest.target_actions(env) if x.mnemonic == "CppCompile"]
    asserts.equals(env, 1, len(compiles), "the generated C is compiled by the C++ toolchain")
    return analysistest.end(env)

wrapper_test = analysistest.make(_wrapper_test)

# --- errors at analysis time ------------------------------------------------------

def _typo_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "unknown processor \"gfx9O8\" in target \"gfx9O8\" (did you mean \"gfx908\"?); known processors: amdgcnspirv")
    asserts.expect_failure(env, "gfx906, gfx908, gfx909, gfx90a")
    return analysistest.end(env)

typo_test = analysistest.make(_typo_test, expect_failure = True)

def _unsupported_feature_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "feature \"xnack\" is not supported by gfx1100")
    return analysistest.end(env)

unsupported_feature_test = analysistest.make(_unsupported_feature_test, expect_failure = True)

def _conflict_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "conflicting targets \"gfx906\" and \"gfx906:xnack+\"")
    return analysistest.end(env)

conflict_test = analysistest.make(_conflict_test, expect_failure = True)

def _duplicate_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "are the same target (hipv4-amdgcn-amd-amdhsa--gfx906)")
    return analysistest.end(env)

duplicate_test = analysistest.make(_duplicate_test, expect_failure = True)

def _cubin_without_ptxas_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "asks for a CUDA cubin (SASS), which needs ptxas")
    asserts.expect_failure(env, "Use compute_70")
    return analysistest.end(env)

cubin_without_ptxas_test = analysistest.make(_cubin_without_ptxas_test, expect_failure = True)

def _cuda_bundle_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "clang-offload-bundler has no \"cuda\" offload kind; use offload_package")
    return analysistest.end(env)

cuda_bundle_test = analysistest.make(_cuda_bundle_test, expect_failure = True)

def _wrong_kind_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "NVIDIA processors need kind \"cuda\" or \"openmp\"")
    return analysistest.end(env)

wrong_kind_test = analysistest.make(_wrong_kind_test, expect_failure = True)

def _no_targets_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "no offload targets")
    return analysistest.end(env)

no_targets_test = analysistest.make(_no_targets_test, expect_failure = True)

def _text_many_sources_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "holds one source per target; got 2 sources")
    return analysistest.end(env)

text_many_sources_test = analysistest.make(_text_many_sources_test, expect_failure = True)

def _entry_id_kind_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "offload kind \"openmp\" does not match the rule's kind \"hip\"")
    return analysistest.end(env)

entry_id_kind_test = analysistest.make(_entry_id_kind_test, expect_failure = True)

# --- embedding, device links, wrapper forms, cuid --------------------------------

def _embed_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadEmbed", 1)
    a = _actions(env, "OffloadEmbed")
    if a:
        argv = a[0].argv
        asserts.equals(env, "embed", argv[1])
        asserts.true(env, argv[2].startswith("--binary=") and argv[2].endswith("/embed.offloadbin"), argv[2])
        asserts.true(env, argv[3].endswith("analysis/host.o"), argv[3])
        asserts.equals(env, "-o", argv[4])
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, "embed.embedded.o", info.embedded.basename)
    return analysistest.end(env)

embed_test = analysistest.make(_embed_test)

def _openmp_link_test(ctx):
    env = analysistest.begin(ctx)
    _count(env, "OffloadCompile", 1)
    _count(env, "OffloadDeviceLink", 1)
    c = _actions(env, "OffloadCompile")
    if c:
        _has(env, c[0].argv, "-fPIC", "a shared object needs PIC")
    link = _actions(env, "OffloadDeviceLink")
    if link:
        asserts.equals(env, "/usr/bin/clang-16", link[0].argv[0])
        for arg in ["--target=x86_64-pc-linux-gnu", "-shared"]:
            _has(env, link[0].argv, arg, "host-CPU device link")
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["object"], [i.image_kind for i in info.images])
    asserts.equals(env, ["link"], [i.producer for i in info.images])
    asserts.equals(env, ["openmp_linked.so"], [i.file.basename for i in info.images])
    return analysistest.end(env)

openmp_link_test = analysistest.make(_openmp_link_test)

def _wrapper_obj_test(ctx):
    env = analysistest.begin(ctx)
    a = _actions(env, "OffloadWrap")
    if a:
        for arg in ["--kind=openmp", "--emit=obj", "--entries=legacy"]:
            _has(env, a[0].argv, arg, "wrap to an object")
        _lacks(env, a[0].argv, "--inline", "objects need no inlined source")
    asserts.equals(env, 0, len([x for x in analysistest.target_actions(env) if x.mnemonic == "CppCompile"]), "no host compile")
    t = analysistest.target_under_test(env)
    libs = [lib for li in t[CcInfo].linking_context.linker_inputs.to_list() for lib in li.libraries]
    asserts.equals(env, [True], [lib.alwayslink for lib in libs])
    archived = [
        f.basename
        for a in analysistest.target_actions(env)
        if a.mnemonic in ("CppArchive", "CppLink")
        for f in a.inputs.to_list()
        if f.extension == "o"
    ]
    asserts.equals(env, ["wrapper_obj.wrapper.o"], archived, "the generated object is what links")
    return analysistest.end(env)

wrapper_obj_test = analysistest.make(_wrapper_obj_test)

def _wrapper_c_test(ctx):
    env = analysistest.begin(ctx)
    a = _actions(env, "OffloadWrap")
    if a:
        _has(env, a[0].argv, "--inline", "C source carries the image bytes, not an .incbin path")
    return analysistest.end(env)

wrapper_c_test = analysistest.make(_wrapper_c_test)

def _cuid_test(ctx):
    env = analysistest.begin(ctx)
    for a in _actions(env, "OffloadCompile"):
        _has(env, a.argv, "-cuid=pinned", "the cuid attribute")
    return analysistest.end(env)

cuid_test = analysistest.make(_cuid_test)

def _cuid_many_sources_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "cuid names one compilation unit; there are 2 sources")
    return analysistest.end(env)

cuid_many_sources_test = analysistest.make(_cuid_many_sources_test, expect_failure = True)

def _nvidia_link_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "device linking for sm_70 needs NVIDIA's nvlink")
    return analysistest.end(env)

nvidia_link_test = analysistest.make(_nvidia_link_test, expect_failure = True)

# --- targets against the SDKs --------------------------------------------------

def _rocm_unsupported_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "target \"gfx1100\": ROCm 5.2.21153 (external/offload_rocm) has no device libraries for gfx1100; it has them for gfx1010, ")
    asserts.expect_failure(env, ", gfx906, gfx908, ")
    return analysistest.end(env)

rocm_unsupported_test = analysistest.make(_rocm_unsupported_test, expect_failure = True)

def _cuda_unsupported_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "target \"sm_100\": CUDA 11.8 (external/offload_cuda) cannot build sm_100; its ptxas supports sm_35, ")
    asserts.expect_failure(env, ", sm_90.")
    return analysistest.end(env)

cuda_unsupported_test = analysistest.make(_cuda_unsupported_test, expect_failure = True)

def _cuda_family_target_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "target \"sm_100f\": clang 22 does not know sm_100f (LLVM 23 added it); use a clang 23 or later")
    return analysistest.end(env)

# NVIDIA's family targets (sm_100f) are LLVM 23's: the clang-22 toolchain
# fails at analysis, before its CUDA 11.8 would.
cuda_family_target_test = analysistest.make(_cuda_family_target_test, expect_failure = True)

def _cuda_family_fatbin_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "target \"sm_100f\": NVIDIA fat binaries of family-specific targets are not written")
    return analysistest.end(env)

# A family target in a fat binary fails at analysis, naming what works.
cuda_family_fatbin_test = analysistest.make(_cuda_family_fatbin_test, expect_failure = True)

def _rocm_unsupported_flag_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "has no device libraries for gfx1100")
    return analysistest.end(env)

rocm_unsupported_flag_test = analysistest.make(
    _rocm_unsupported_flag_test,
    expect_failure = True,
    config_settings = {"@rules_offload//rules:targets": ["gfx90a", "gfx1100"]},
)

def _freestanding_test(ctx):
    env = analysistest.begin(ctx)
    a = _compile_for(env, "gfx1100")
    if a:
        _has(env, a.argv, "-nogpulib", "the rule's copts")
    return analysistest.end(env)

freestanding_test = analysistest.make(_freestanding_test)

def _cubin_hermetic_test(ctx):
    env = analysistest.begin(ctx)
    a = _compile_for(env, "sm_90")
    if a:
        _has(env, a.argv, "-c", "a cubin")
        _has(env, a.argv, "--ptxas-path=external/offload_cuda/bin/ptxas", "ptxas from the CUDA repository")
        _has_inputs(env, a, ["external/offload_cuda/bin/ptxas", "external/offload_cuda/include/cuda_runtime.h"])
    info = analysistest.target_under_test(env)[OffloadPackageInfo]
    asserts.equals(env, ["cubin"], [i.image_kind for i in info.images])
    _hermetic(env, _ALL)
    return analysistest.end(env)

cubin_hermetic_test = analysistest.make(_cubin_hermetic_test)

def _no_rocm_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "HIP target \"gfx906\" needs ROCm (HIP headers and device libraries), and the clang toolchain's ROCm has none: no HIP headers (include/hip/hip_runtime.h); looked in $ROCM_PATH")
    return analysistest.end(env)

no_rocm_test = analysistest.make(_no_rocm_test, expect_failure = True)
