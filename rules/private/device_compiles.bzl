"""The device compiles of the compiling rules (offload_library, offload_bundle, offload_package).

Their targets (the attribute or the flag, resolved and checked against the
SDKs), the plan and the actions per (source, target), prebuilt images
instead, and the output groups of the images.
"""

load("//rules/private/actions:compile.bzl", "device_compile_command", "emit_device_compile")
load("//rules/private/actions:compile_command.bzl", "compile_command_file", "emit_compile_command")
load("//rules/private/actions:device_link.bzl", "emit_device_link")
load("//rules/private/targets:targets.bzl", "resolve_target", "resolve_targets", "target_dir")
load(":cc.bzl", "cc_setup")
load(":common.bzl", "IMAGE_TYPES")
load(":compilation_mode.bzl", "mode_copts")
load(":device_code_check.bzl", "device_code_error")
load(":headers.bzl", "rule_headers")
load(":native.bzl", "OffloadNativeTargetsInfo", "expand_native")
load(":providers.bzl", "OffloadImageInfo", "OffloadTargetsInfo")
load(":sdk_check.bzl", "sdk_error")
load(":toolchain.bzl", "find_clang")

def target_specs(ctx):
    """The rule's targets attribute, else the --@rules_offload//rules:targets flag.

    Args:
      ctx: a rule context with targets and _targets_flag attributes.

    Returns:
      list of string, never empty (fails instead).
    """
    specs = ctx.attr.targets
    if not specs:
        specs = ctx.attr._targets_flag[OffloadTargetsInfo].targets
    if not specs:
        fail("%s: no offload targets: set targets, or --@rules_offload//rules:targets=gfx906,..." % ctx.label)
    return specs

def resolve_or_fail(ctx, clang, specs, kind, code_object):
    """targets.resolve_targets and the SDK check, failing with the rule's label on error.

    Args:
      ctx: the rule context (with a copts attribute).
      clang: OffloadClangInfo, whose SDKs must support the targets.
      specs: list of string, the targets as written.
      kind: the offload kind's struct (kinds/registry.bzl).
      code_object: whether the images are linked code objects (HIP).

    Returns:
      list of resolved target structs, sorted by bundle ID.
    """
    specs = expand_native(ctx.label, specs, kind, ctx.attr._native_targets[OffloadNativeTargetsInfo])
    targets, err = resolve_targets(specs, kind.name, code_object)
    if not err and code_object:
        err = kind.bundle.bitcode_copts_error(ctx.attr.copts)
    if not err:
        err = sdk_error(clang, kind, targets, ctx.attr.copts)
    if not err:
        err = device_code_error(getattr(ctx.attr, "deps", []) + getattr(ctx.attr, "implementation_deps", []), targets)
    if err:
        fail("%s: %s" % (ctx.label, err))
    return targets

def compile_plan(ctx, clang, kind, file_type, target):
    """How to compile for one target: clang flags, image kind, extension.

    CUDA objects are cubins, which need ptxas: without one on the clang
    toolchain, a cubin target fails here rather than at execution. PTX
    targets (compute_XX, or type "s") need none.

    Args:
      ctx: the rule context (for errors).
      clang: OffloadClangInfo.
      kind: the offload kind's struct.
      file_type: a key of IMAGE_TYPES.
      target: struct from targets.resolve_target.

    Returns:
      struct(flags, image_kind, ext).
    """
    t = IMAGE_TYPES[file_type]
    flags, image_kind, ext = t.flags, t.image_kind, t.ext
    plan, err = target.family.compile_plan(file_type, target, bool(clang.ptxas))
    if err:
        fail("%s: %s" % (ctx.label, err))
    if plan:
        return plan
    if kind.compile.gpu_objects_are_bitcode and file_type == "o" and target.processor:
        # The OpenMP device compile of a GPU target is LTO bitcode.
        return struct(flags = flags, image_kind = "bitcode", ext = ".bc")
    return struct(flags = flags, image_kind = image_kind, ext = ext)

def _stem(src):
    base = src.basename
    dot = base.rfind(".")
    return base[:dot] if dot > 0 else base

def source_stems(srcs):
    """Per-source output stems, with an index where basenames collide.

    Args:
      srcs: list of File.

    Returns:
      list of string, one per source: "scale", or "1/scale" for the
      second of two sources named scale.*.
    """
    counts = {}
    for s in srcs:
        counts[_stem(s)] = counts.get(_stem(s), 0) + 1
    out = []
    for i, s in enumerate(srcs):
        st = _stem(s)
        out.append(st if counts[st] == 1 else "%d/%s" % (i, st))
    return out

def _image(file, target, image_kind, kind, producer):
    return OffloadImageInfo(
        file = file,
        target = target.name,
        target_id = target.target_id,
        processor = target.processor,
        triple = target.triple,
        bundle_id = target.bundle_id,
        image_kind = image_kind,
        offload_kind = kind.name,
        producer = producer,
    )

def compile_images(ctx, clang, kind, file_type, targets, srcs, link, compile_kwargs):
    """Declares the compile (and link) actions for every source and target.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      kind: the offload kind's struct.
      file_type: a key of IMAGE_TYPES.
      targets: resolved targets (targets.resolve_targets).
      srcs: list of File.
      link: "auto": several sources make one image per target (HIP,
        -fgpu-rdc and a device link), one source is its own image; "always":
        every target's code is device-linked into a loadable image (OpenMP
        host-CPU shared objects); "never": each (source, target) is an image.
      compile_kwargs: dict of extra emit_device_compile arguments.

    Returns:
      list of OffloadImageInfo, by target then source.
    """
    images = []
    stems = source_stems(srcs)
    prefix = "_offload/%s/" % ctx.label.name
    for t in targets:
        plan = compile_plan(ctx, clang, kind, file_type, t)
        if link == "always" or (link == "auto" and len(srcs) > 1):
            if file_type != "o":
                fail("%s: device linking makes loadable images; it needs type \"o\", not %r" % (ctx.label, file_type))
            rdc, ext = kind.bundle.link_compile or t.family.link_compile(t)
            objs = []
            for src, stem in zip(srcs, stems):
                obj = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, stem, ext))
                emit_device_compile(ctx, clang, src, t, obj, kind, plan.flags + rdc, all_targets = targets, **compile_kwargs)
                objs.append(obj)
            out = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, ctx.label.name, t.family.linked_ext(t)))
            emit_device_link(ctx, clang, t, objs, out)
            images.append(_image(out, t, "object", kind, "link"))
            continue
        for src, stem in zip(srcs, stems):
            out = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, stem, plan.ext))
            emit_device_compile(ctx, clang, src, t, out, kind, plan.flags, all_targets = targets, **compile_kwargs)
            images.append(_image(out, t, plan.image_kind, kind, "compile"))
    return images

def linked_images(ctx, clang, kind, link, targets, srcs, compile_kwargs):
    """Per (target, source) a device compile and its own device link, as clang's new driver builds whole-program code.

    The compile makes LTO bitcode; the link (the relocatable device link's
    flags, with the compilation mode's) makes the code object, as
    clang-linker-wrapper links each target of one translation unit.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      kind: the offload kind's struct.
      link: struct from kind.whole_program_link.
      targets: resolved targets.
      srcs: list of File.
      compile_kwargs: dict of extra emit_device_compile arguments.

    Returns:
      list of OffloadImageInfo, by target then source.
    """
    images = []
    prefix = "_offload/%s/" % ctx.label.name
    for t in targets:
        for src, stem in zip(srcs, source_stems(srcs)):
            obj = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, stem, link.ext))
            emit_device_compile(ctx, clang, src, t, obj, kind, link.compile_flags, all_targets = targets, **compile_kwargs)
            out = ctx.actions.declare_file("%s%s/%s%s" % (prefix, t.dir, stem, t.family.linked_ext(t)))
            emit_device_link(ctx, clang, t, depset([obj]), out, rdc = True, mode_flags = mode_copts(ctx))
            images.append(_image(out, t, "object", kind, "link"))
    return images

def device_compile_commands(ctx, clang, kind, file_type, targets, srcs, compile_kwargs):
    """The compile_commands output group of a device-only rule: per source its first target's compile.

    An editor needs one command per file; the device compile of the first
    target (by bundle ID) stands for them all.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      kind: the offload kind's struct.
      file_type: a key of IMAGE_TYPES.
      targets: resolved targets, not empty.
      srcs: list of File.
      compile_kwargs: dict of device_compile_command arguments (compile_kwargs).

    Returns:
      depset of File: the written commands and the headers they read
      (generated ones must exist for an editor to open them).
    """
    t = targets[0]
    plan = compile_plan(ctx, clang, kind, file_type, t)
    files = []
    for src, stem in zip(srcs, source_stems(srcs)):
        out = compile_command_file(ctx, stem)
        command = device_compile_command(ctx, clang, src, t, out, kind, plan.flags, all_targets = targets, **compile_kwargs)
        files.append(emit_compile_command(ctx, clang, command, out))
    return depset(files, transitive = [compile_kwargs["headers"].headers])

_EXT_KINDS = {
    "o": "object",
    "hsaco": "object",
    "co": "object",
    "so": "object",
    "bc": "bitcode",
    "ll": "llvm-ir",
    "ptx": "ptx",
    "cubin": "cubin",
    "s": "assembly",
}

def prebuilt_images(ctx, kind, code_object, images_attr):
    """OffloadImageInfo for the images attribute ({label: target}).

    Args:
      ctx: the rule context.
      kind: the offload kind's struct.
      code_object: whether HIP images are linked code objects.
      images_attr: the images attribute's dict (Target -> target string).

    Returns:
      (list of OffloadImageInfo, list of resolved targets), sorted by target.
    """
    out = []
    targets = []
    for tgt, spec in images_attr.items():
        files = tgt.files.to_list()
        if len(files) != 1:
            fail("%s: images: %s must be exactly one file, has %d" % (ctx.label, tgt.label, len(files)))
        t, err = resolve_target(spec, kind.name, code_object)
        if err:
            fail("%s: images: %s" % (ctx.label, err))
        ext = files[0].extension
        image_kind = t.family.assembly_image if ext == "s" else _EXT_KINDS.get(ext, "object")
        out.append(_image(files[0], t, image_kind, kind, "prebuilt"))
        targets.append(t)
    return out, targets

def source_and_prebuilt_images(ctx, kind, file_type, code_object, link):
    """The images of a rule that compiles srcs and takes prebuilt images too.

    offload_bundle's and offload_package's shared first half: srcs compiled
    for the rule's targets (with their compile commands), the images
    attribute's files beside them.

    Args:
      ctx: a rule context with compile_attrs, srcs and images.
      kind: the offload kind's struct.
      file_type: the container's type ("o", "bc", ...).
      code_object: whether HIP images are linked code objects.
      link: compile_images' link ("auto", "always" or "never").

    Returns:
      struct(compiled, targets, prebuilt, prebuilt_targets, commands): the
      compiled images and their targets, the prebuilt ones and theirs (each
      list sorted by target), and the compile-command files (a depset).
    """
    if not ctx.files.srcs and not ctx.attr.images:
        fail("%s: give srcs to compile, or prebuilt images" % ctx.label)
    compiled = []
    targets = []
    commands = depset()
    srcs = ctx.files.srcs
    if srcs:
        clang = find_clang(ctx)
        targets = resolve_or_fail(ctx, clang, target_specs(ctx), kind, code_object)
        kwargs = compile_kwargs(ctx, cc_setup(ctx))
        compiled = compile_images(ctx, clang, kind, file_type, targets, srcs, link, kwargs)
        commands = device_compile_commands(ctx, clang, kind, file_type, targets, srcs, kwargs)
    prebuilt, prebuilt_targets = prebuilt_images(ctx, kind, code_object, ctx.attr.images)
    return struct(
        compiled = compiled,
        targets = targets,
        prebuilt = prebuilt,
        prebuilt_targets = prebuilt_targets,
        commands = commands,
    )

def output_groups(images):
    """OutputGroupInfo fields: all images, per image kind and per target.

    Args:
      images: list of OffloadImageInfo.

    Returns:
      dict of group name to depset: device_images, one per image kind
      ("object", "ptx", ...) and one per target ("target_gfx90a_xnack+").
    """
    groups = {"device_images": []}
    for i in images:
        groups["device_images"].append(i.file)
        groups.setdefault(i.image_kind.replace("-", "_"), []).append(i.file)
        groups.setdefault("target_" + target_dir(i.target), []).append(i.file)
    return {k: depset(v) for k, v in groups.items()}

def compile_kwargs(ctx, cc):
    """emit_device_compile arguments from the common attributes.

    Args:
      ctx: a rule context with the attributes of attrs.compile_attrs.
      cc: struct from cc.cc_setup.

    Returns:
      dict of keyword arguments; "headers" is headers.rule_headers' struct,
      whose public compilation context a library exports.
    """
    if ctx.attr.cuid and len(ctx.files.srcs) > 1:
        fail("%s: cuid names one compilation unit; there are %d sources" % (ctx.label, len(ctx.files.srcs)))
    return dict(
        cuid = ctx.attr.cuid,
        copts = mode_copts(ctx) + ctx.attr.copts,
        headers = rule_headers(ctx, cc),
    )
