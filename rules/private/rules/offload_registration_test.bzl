"""offload_registration_test: checks what a program registers with the offload runtimes, without a GPU."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:cc.bzl", "cc_setup")
load("//rules/private:common.bzl", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE", "SUPPORTS_PATH_MAPPING")
load("//rules/private:providers.bzl", "OffloadLibraryInfo")
load("//rules/private:toolchain.bzl", "find_offload_tool")
load("//rules/private/kinds:registry.bzl", "KINDS")

_DeclaredInfo = provider(
    doc = "What the libraries under a target declare, and the CcInfo of its deps.",
    fields = {
        "declared": "depset of string: \"kind=t1,t2\" per library.",
        "libraries": "depset of Label: the offload libraries.",
        "deps_cc": "CcInfo of the target's deps (cc_binary itself returns none).",
    },
)

def _declared_aspect_impl(target, ctx):
    mine, labels = [], []
    if OffloadLibraryInfo in target:
        info = target[OffloadLibraryInfo]
        mine.append("%s=%s" % (info.kind, ",".join(info.targets)))
        labels.append(target.label)
    deps = [d for d in getattr(ctx.rule.attr, "deps", []) if _DeclaredInfo in d]
    return [_DeclaredInfo(
        declared = depset(mine, transitive = [d[_DeclaredInfo].declared for d in deps]),
        libraries = depset(labels, transitive = [d[_DeclaredInfo].libraries for d in deps]),
        deps_cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in deps if CcInfo in d]),
    )]

_declared_aspect = aspect(
    implementation = _declared_aspect_impl,
    attr_aspects = ["deps"],
)

def _recorded_runtime(library):
    """Whether library is an offload runtime that the recorder stands in for."""
    for f in [library.static_library, library.pic_static_library, library.dynamic_library]:
        if not f:
            continue
        for kind in KINDS.values():
            for prefix in kind.runtime.recorded:
                if f.basename.startswith(prefix):
                    return True
    return False

def _whole(ctx, cc, lib):
    """lib, linked whole: nothing of the program refers to its objects here."""
    if lib.alwayslink or not (lib.static_library or lib.pic_static_library):
        return lib
    return cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = cc.features,
        cc_toolchain = cc.toolchain,
        static_library = lib.static_library,
        pic_static_library = lib.pic_static_library,
        alwayslink = True,
    )

def _without_runtimes(ctx, cc, linking_context, offload_libraries):
    """The linking context less the offload runtimes and every shared library.

    Shared libraries are dropped too: the recorder runs in an action
    without them, and only the registration constructors run, which call
    nothing but the recorder. The offload libraries are linked whole: main
    and the code that calls them are not linked.
    """
    inputs = []
    for li in linking_context.linker_inputs.to_list():
        libs = [
            lib
            for lib in li.libraries
            if (lib.static_library or lib.pic_static_library or lib.objects or lib.pic_objects) and
               not _recorded_runtime(lib)
        ]
        if li.owner in offload_libraries:
            libs = [_whole(ctx, cc, lib) for lib in libs]
        inputs.append(cc_common.create_linker_input(
            owner = li.owner,
            libraries = depset(libs),
            user_link_flags = depset(li.user_link_flags),
        ))
    return cc_common.create_linking_context(linker_inputs = depset(inputs))

def _offload_registration_test_impl(ctx):
    infos = [d[_DeclaredInfo] for d in ctx.attr.deps]
    if ctx.attr.binary:
        infos.append(ctx.attr.binary[_DeclaredInfo])
    if not infos:
        fail("%s: give binary (a cc_binary or cc_test) or deps (the libraries it links)" % ctx.label)
    cc = cc_setup(ctx)
    offload_libraries = {label: True for label in depset(transitive = [i.libraries for i in infos]).to_list()}
    contexts = [d[CcInfo].linking_context for d in ctx.attr.deps]
    if ctx.attr.binary:
        contexts.append(ctx.attr.binary[_DeclaredInfo].deps_cc.linking_context)
    linking = [_without_runtimes(ctx, cc, c, offload_libraries) for c in contexts]
    linking.append(ctx.attr._recorder[CcInfo].linking_context)
    linked = cc_common.link(
        actions = ctx.actions,
        feature_configuration = cc.features,
        cc_toolchain = cc.toolchain,
        linking_contexts = linking,
        name = ctx.label.name + "_recorder",
        # Runtime calls stay unresolved: only constructors run, and those
        # call the recorder. -no-pie leaves such references as 0, not as
        # dynamic relocations the loader would refuse; -z lazy undoes the
        # toolchain's -z now, which would resolve every call at start-up.
        # --wrap=main: the C runtime calls the recorder's __wrap_main, not
        # a main among the libraries (an OpenMP program's, a cc_test's).
        user_link_flags = ["-no-pie", "-Wl,-z,lazy", "-Wl,--unresolved-symbols=ignore-all", "-Wl,--wrap=main"],
        link_deps_statically = True,
    )
    recorder = linked.executable
    record = ctx.actions.declare_file(ctx.label.name + ".record")
    args = ctx.actions.args()
    args.add(record)
    ctx.actions.run(
        executable = recorder,
        arguments = [args],
        outputs = [record],
        execution_requirements = SUPPORTS_PATH_MAPPING,
        mnemonic = MNEMONICS.registration_record,
        progress_message = "Recording the offload registration of %s" % ctx.label,
    )

    declared = depset(transitive = [i.declared for i in infos]).to_list()
    if ctx.attr.targets:
        kinds = sorted({d.split("=")[0]: True for d in declared}.keys())
        declared = ["%s=%s" % (k, ",".join(ctx.attr.targets)) for k in kinds]
    flags = ["--targets=" + d for d in sorted(declared)]
    flags.append("--host=" + recorder.short_path)
    tool = find_offload_tool(ctx).executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "\n".join([
        "#!/bin/sh",
        "# offload_registration_test %s: the program's registration, recorded without a GPU, checked." % ctx.label,
        "exec %s regcheck %s %s" % (
            _quote(tool.short_path),
            " ".join([_quote(a) for a in flags]),
            _quote(record.short_path),
        ),
        "",
    ]), is_executable = True)
    return [
        DefaultInfo(executable = script, runfiles = ctx.runfiles(files = [tool, record, recorder])),
        OutputGroupInfo(record = depset([record]), recorder = depset([recorder])),
    ]

def _quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

offload_registration_test = rule(
    implementation = _offload_registration_test_impl,
    test = True,
    doc = """Checks, without a GPU, what a program registers with the offload runtimes.

The offload libraries of `binary` (its deps; cc_binary's own sources are
left out, main() included) are linked a second time against a recording
stand-in of the HIP runtime, the CUDA runtime (static and shared) and
libomptarget, with runtime references left unresolved. That program runs
at build time (only the registration constructors run) and records every
fat binary and every kernel and variable registered. The test then runs
`offload regcheck`, which fails unless every fat binary holds exactly the
targets its library declares, every registered kernel and variable exists
in every target's image (cubin and code object symbol tables, PTX
`.entry`s), and every kernel of every image that the host program has a
launch stub for is registered (one it has none for was instantiated by
device code, and the report says so). Its errors name the kernel, the
target and the likely cause.""",
    attrs = {
        "binary": attr.label(
            aspects = [_declared_aspect],
            doc = "The program (cc_binary, cc_test): its deps are the offload libraries checked.",
        ),
        "deps": attr.label_list(
            aspects = [_declared_aspect],
            providers = [CcInfo],
            doc = "Libraries to check instead of (or besides) binary's deps.",
        ),
        "targets": attr.string_list(
            doc = "The targets every fat binary must hold; default: the targets its libraries declare.",
        ),
        "_recorder": attr.label(default = Label("//rules/private/registration:recorder"), providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
