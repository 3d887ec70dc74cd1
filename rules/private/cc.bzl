"""CcInfo for objects the offload rules compile, so cc_binary and cc_test link them."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

def cc_setup(ctx):
    """The C++ toolchain and its feature configuration for this rule.

    Args:
      ctx: a rule context with _cc_toolchain and the cpp fragment.

    Returns:
      struct(toolchain, features).
    """
    cc_toolchain = find_cc_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    return struct(toolchain = cc_toolchain, features = features)

def objects_linking_context(ctx, cc, objects, alwayslink):
    """A linking context for host objects (position-independent, so both lists).

    Args:
      ctx: the rule context.
      cc: struct from cc_setup.
      objects: list of File.
      alwayslink: whether the linker keeps every object.

    Returns:
      LinkingContext.
    """
    outputs = cc_common.create_compilation_outputs(objects = depset(objects), pic_objects = depset(objects))
    return outputs_linking_context(ctx, cc, outputs, alwayslink)

def outputs_linking_context(ctx, cc, outputs, alwayslink):
    """A linking context for compilation outputs (of cc_common.compile, or made by hand).

    Args:
      ctx: the rule context.
      cc: struct from cc_setup.
      outputs: CompilationOutputs.
      alwayslink: whether the linker keeps every object.

    Returns:
      LinkingContext.
    """
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        feature_configuration = cc.features,
        cc_toolchain = cc.toolchain,
        compilation_outputs = outputs,
        name = ctx.label.name,
        alwayslink = alwayslink,
        disallow_dynamic_library = True,
    )
    return linking_context

def library_linking_context(ctx, cc, static_library = None, dynamic_libraries = [], link_flags = []):
    """A linking context for prebuilt libraries (a runtime) and their flags.

    Args:
      ctx: the rule context.
      cc: struct from cc_setup.
      static_library: File or None.
      dynamic_libraries: list of File, in link order.
      link_flags: list of string after them ("-ldl").

    Returns:
      LinkingContext.
    """
    libraries = []
    if static_library:
        libraries.append(cc_common.create_library_to_link(
            actions = ctx.actions,
            feature_configuration = cc.features,
            cc_toolchain = cc.toolchain,
            static_library = static_library,
        ))
    for lib in dynamic_libraries:
        libraries.append(cc_common.create_library_to_link(
            actions = ctx.actions,
            feature_configuration = cc.features,
            cc_toolchain = cc.toolchain,
            dynamic_library = lib,
        ))
    linker_input = cc_common.create_linker_input(
        owner = ctx.label,
        libraries = depset(libraries),
        user_link_flags = depset(link_flags),
    )
    return cc_common.create_linking_context(linker_inputs = depset([linker_input]))

def merge(compilation_context, linking_contexts, deps):
    """One CcInfo: this rule's contexts, then its deps'.

    Args:
      compilation_context: CompilationContext.
      linking_contexts: list of LinkingContext, in link order.
      deps: list of CcInfo.

    Returns:
      CcInfo.
    """
    own = [CcInfo(compilation_context = compilation_context)]
    own += [CcInfo(linking_context = lc) for lc in linking_contexts]
    return cc_common.merge_cc_infos(direct_cc_infos = own, cc_infos = deps)
