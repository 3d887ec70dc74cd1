"""offload_library: a HIP, CUDA or OpenMP library, device and host halves, as CcInfo."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//rules/private:attrs.bzl", "compile_attrs")
load("//rules/private:cc.bzl", "cc_setup", "library_linking_context", "merge", "objects_linking_context")
load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "DEFAULT_HOST_TRIPLE", "MNEMONICS", "OFFLOAD_TOOLCHAIN_TYPE")
load("//rules/private:device_compiles.bzl", "compile_images", "compile_kwargs", "linked_images", "output_groups", "resolve_or_fail", "source_stems", "target_specs")
load("//rules/private:providers.bzl", "OffloadLibraryInfo", "OffloadRdcInfo")
load("//rules/private:toolchain.bzl", "find_clang", "find_offload_tool")
load("//rules/private/actions:compile.bzl", "device_compile_command", "run_command", "source_cuid")
load("//rules/private/actions:compile_command.bzl", "compile_command_file", "emit_compile_command")
load("//rules/private/actions:containers.bzl", "CONTAINERS")
load("//rules/private/actions:host_compile.bzl", "device_code", "emit_host_compile", "host_compile_command")
load("//rules/private/actions:joint_compile.bzl", "emit_joint_compile")
load("//rules/private/kinds:registry.bzl", "KINDS", "KIND_NAMES")

def _check_copts(ctx):
    for flag in ctx.attr.copts:
        if flag in ("-fgpu-rdc", "-fno-gpu-rdc", "--offload-new-driver", "-fcuda-rdc"):
            fail("%s: copts: %s is the rule's choice, not a flag: relocatable device code needs the " % (ctx.label, flag) +
                 "device link of every library of a binary (rdc = True), which one compile cannot do")
        if flag.startswith("--offload-arch") or flag.startswith("--cuda-gpu-arch") or flag.startswith("-fopenmp-targets"):
            fail("%s: copts: %s: list offload targets in targets (or --@rules_offload//rules:targets)" % (ctx.label, flag))

def _gpubinary(ctx, clang, kind, images, stem, link):
    """One source's device images in the container its host half embeds or refers to."""
    if link:
        container = CONTAINERS[link.container]
        out = ctx.actions.declare_file("_offload/%s/%s%s" % (ctx.label.name, stem, container.ext))
        return container.emit(ctx, find_offload_tool(ctx), images, out, clang.host_triple or DEFAULT_HOST_TRIPLE)
    container = CONTAINERS[kind.host.fat_binary]
    out = ctx.actions.declare_file("_offload/%s/%s%s" % (ctx.label.name, stem, container.ext))
    return container.emit(ctx, find_offload_tool(ctx), images, out)

def _fat_binary_object(ctx, clang, kind, fat_binary, cuid, stem):
    """The object that holds a source's fat binary for its host object."""
    container = CONTAINERS[kind.host.fat_binary]
    out = ctx.actions.declare_file("_offload/%s/%s%s.o" % (ctx.label.name, stem, container.ext))
    triple = clang.host_triple or DEFAULT_HOST_TRIPLE
    return container.object(ctx, find_offload_tool(ctx), fat_binary, cuid, triple, out)

def _rdc_device_objects(ctx, clang, kind, targets, srcs, stems, kwargs):
    """Relocatable device objects per (target, source), and the provider that carries them.

    For kinds whose device compiles run with the host half (OpenMP), also
    the device compile commands per source path, not yet run.

    These are the device compiles of clang's new offload driver with
    -fgpu-rdc: LLVM bitcode for AMDGPU, relocatable cubins (ptxas -c) for
    NVIDIA, byte-identical to what clang embeds in its host objects; for
    OpenMP host-CPU devices, position-independent objects.
    """
    images = []
    objects = {}

    # device_with_host (OpenMP): each source's device compiles wait for its
    # host compile, to run in one action with it (emit_joint_compile says why).
    joint_commands = {}
    for t in targets:
        plan, err = kind.link.rdc_plan(clang, t)
        if err:
            fail("%s: %s" % (ctx.label, err))
        mine = []
        for src, stem in zip(srcs, stems):
            out = ctx.actions.declare_file("_offload/%s/%s/%s%s" % (ctx.label.name, t.dir, stem, plan.ext))
            command = device_compile_command(ctx, clang, src, t, out, kind, plan.flags, all_targets = targets, **kwargs)
            if plan.files:
                # What the plan's flags name: SDK files, a device runtime.
                command = struct(
                    args = command.args,
                    inputs = depset(transitive = [command.inputs] + plan.files),
                    outputs = command.outputs,
                    mapping = command.mapping,
                    what = command.what,
                )
            if kind.host.device_with_host:
                joint_commands.setdefault(src.path, []).append(command)
            else:
                run_command(ctx, clang, command, MNEMONICS.compile, "Compiling")
            mine.append(out)
            images.append(struct(file = out, image_kind = plan.image_kind, target = t.name))
        objects[t.name] = mine
    names = sorted([t.name for t in targets])
    transitive = {n: [] for n in names}
    for dep in ctx.attr.deps:
        if OffloadRdcInfo not in dep:
            continue
        info = dep[OffloadRdcInfo]
        if info.kind != kind.name or info.targets != names:
            fail("%s: relocatable device code of %s (%s for %s) cannot link with this library's (%s for %s): " % (
                ctx.label,
                dep.label,
                info.kind,
                ", ".join(info.targets),
                kind.name,
                ", ".join(names),
            ) + "libraries of one device link need the same kind and targets")
        for n in names:
            transitive[n].append(info.objects[n])
    info = OffloadRdcInfo(
        kind = kind.name,
        targets = names,
        # A library's objects before its deps', as in a host link: clang's
        # device link of the same objects in that order makes the same image.
        objects = {n: depset(objects[n], transitive = transitive[n], order = "topological") for n in names},
    )
    return images, info, joint_commands

def _offload_library_impl(ctx):
    kind = KINDS[ctx.attr.kind]
    _check_copts(ctx)
    clang = find_clang(ctx)
    targets = resolve_or_fail(ctx, clang, target_specs(ctx), kind, True)
    runtime = None
    if ctx.attr.runtime != "none":
        runtime, err = kind.runtime.libraries(clang, ctx.attr.runtime)
        if err:
            fail("%s: %s" % (ctx.label, err))
    srcs = ctx.files.srcs
    cc = cc_setup(ctx)
    kwargs = compile_kwargs(ctx, cc)
    source_kwargs = {k: v for k, v in kwargs.items() if k != "cuid"}

    stems = source_stems(srcs)
    providers = []
    joint_commands = {}

    # OpenMP device code is always linked per program, as clang's driver
    # links it at the program's link.
    rdc = ctx.attr.rdc or kind.link.always_rdc
    link = None if rdc else kind.host.whole_program_link(clang, targets)
    if rdc:
        # Device half: relocatable device objects, linked once per binary.
        images, rdc_info, joint_commands = _rdc_device_objects(ctx, clang, kind, targets, srcs, stems, kwargs)
        providers.append(rdc_info)
    elif link:
        # Device half: per (target, source) a compile and a device link, as
        # clang's new driver builds whole-program code (clang 23 HIP).
        images = linked_images(ctx, clang, kind, link, targets, srcs, kwargs)
    else:
        # Device half: one compile per (target, source), as offload_bundle.
        images = compile_images(ctx, clang, kind, "o", targets, srcs, "never", kwargs)

    # Host half: per source one compile. Whole-program mode puts the
    # source's images in a fat binary: CUDA's host compile embeds it, HIP's
    # refers to it and an object of its own holds it. RDC mode leaves
    # offload entries for the registration that offload_device_link writes.
    objects = []
    host_objects = []
    fatbin_objects = []
    compile_commands = []
    for i, src in enumerate(srcs):
        stem = stems[i]
        obj = ctx.actions.declare_file("_offload/%s/%s.o" % (ctx.label.name, stem))
        cuid = ctx.attr.cuid or source_cuid(ctx, src)
        code = device_code()
        fatbin_object = None
        if rdc and not kind.host.device_with_host:
            code = device_code(rdc = True)
        elif not rdc:
            mine = [images[t * len(srcs) + i] for t in range(len(targets))]
            fat_binary = _gpubinary(ctx, clang, kind, mine, stem, link)
            if kind.host.fat_binary_object:
                fatbin_object = _fat_binary_object(ctx, clang, kind, fat_binary, cuid, stem)
                code = device_code(separate = True)
            else:
                code = device_code(embed = fat_binary)
        if kind.host.device_with_host:
            host = host_compile_command(ctx, clang, src, kind, targets, code, obj, cuid, source_kwargs)
            emit_joint_compile(ctx, clang, src, joint_commands[src.path] + [host])
        else:
            emit_host_compile(ctx, clang, src, kind, targets, code, obj, cuid, source_kwargs)

        # For editors: the host half with every target named, as clang's
        # own multi-arch command of the source.
        command_file = compile_command_file(ctx, stem)
        entry = host_compile_command(ctx, clang, src, kind, targets, device_code(), command_file, cuid, source_kwargs)
        compile_commands.append(emit_compile_command(ctx, clang, entry, command_file))
        host_objects.append(obj)
        objects.append(obj)
        if fatbin_object:
            fatbin_objects.append(fatbin_object)
            objects.append(fatbin_object)

    linking = [objects_linking_context(ctx, cc, objects, ctx.attr.alwayslink)]
    if runtime:
        linking.append(library_linking_context(ctx, cc, runtime.static, runtime.dynamic, runtime.flags))
    linking.append(library_linking_context(ctx, cc, link_flags = ctx.attr.linkopts))

    # implementation_deps: linked, their headers not exported (cc_library's).
    linking += [d[CcInfo].linking_context for d in ctx.attr.implementation_deps]
    cc_info = merge(kwargs["headers"].public, linking, [d[CcInfo] for d in ctx.attr.deps])

    providers.append(OffloadLibraryInfo(kind = kind.name, targets = sorted([t.name for t in targets])))
    groups = output_groups(images)
    groups["host_objects"] = depset(host_objects)
    groups["fatbin_objects"] = depset(fatbin_objects)
    groups["compile_commands"] = depset(compile_commands, transitive = [kwargs["headers"].headers])
    return [
        DefaultInfo(files = depset(objects)),
        cc_info,
        OutputGroupInfo(**groups),
    ] + providers

_ATTRS = compile_attrs("o")
_ATTRS.pop("type")
_ATTRS.update({
    "kind": attr.string(
        doc = "Offload kind: \"hip\", \"cuda\" or \"openmp\" (host-CPU devices; always relocatable).",
        mandatory = True,
        values = KIND_NAMES,
    ),
    "runtime": attr.string(
        doc = "The offload runtime to link: \"\" (HIP: libamdhip64.so; CUDA: libcudart_static.a " +
              "with -ldl -lrt -lpthread, as nvcc; OpenMP: libomp and libomptarget), \"shared\" " +
              "(CUDA: libcudart.so), \"static\" or \"none\" (link it yourself). From the clang " +
              "toolchain's ROCm, CUDA or LLVM installation.",
        values = ["", "static", "shared", "none"],
    ),
    "linkopts": attr.string_list(doc = "Flags for the link of binaries that depend on this library."),
    "rdc": attr.bool(
        doc = "Relocatable device code: kernels may call __device__ functions of other rdc " +
              "libraries in deps. The device link happens once per program, in an " +
              "offload_device_link over the libraries, which registers the linked code.",
    ),
    "alwayslink": attr.bool(
        doc = "Link every object even if nothing refers to it (kernels launched only through " +
              "the runtime by name).",
    ),
})

offload_library = rule(
    implementation = _offload_library_impl,
    doc = """A HIP, CUDA or OpenMP library: sources with kernels and the host code that launches them.

Per source: one OffloadCompile per target (AMDGPU code objects; CUDA cubins
for sm_XX, PTX for compute_XX), the images in the fat binary the runtime
loads (a HIP fat binary by `offload bundler`; an NVIDIA fat binary by
`offload fatbin`, fatbinary's bytes), and one OffloadHostCompile with the
same cuid. CUDA's embeds the fat binary, as clang's own `-c` does; HIP's
refers to it by the symbol clang derives from the cuid, and an
OffloadHipFatbinObject defines it, so adding a target or editing device
code does not recompile host code. The result is CcInfo: the host objects,
hdrs/includes/defines for dependents, deps, and the runtime (libamdhip64;
cudart), so cc_binary(deps = [...]) links a program.

OpenMP (kind "openmp", host-CPU targets such as x86_64-pc-linux-gnu):
relocatable device objects per (source, target) and the host half of
-fopenmp-targets; an offload_device_link over the program's libraries links
the device code, packages it and registers it with libomptarget.

Compilation mode drives both halves: -c opt adds -O2, -c dbg -g; copts
come after and win.""",
    attrs = _ATTRS,
    fragments = ["cpp"],
    toolchains = [str(OFFLOAD_TOOLCHAIN_TYPE), str(CLANG_TOOLCHAIN_TYPE)] + use_cc_toolchain(),
)
