"""What a compile of the offload rules sees of headers: cc_library's compilation context.

cc_common.compile (without sources) builds the rule's own context as
cc_library does: the workspace (or external repository) root and the
bin directory as -iquote, include_prefix/strip_include_prefix as
_virtual_includes symlinks, defines. The rule's compiles then see that
context merged with deps' and implementation_deps', plus local_defines;
dependents see it merged with deps' only.
"""

load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

def _system_includes(ctx):
    """cc_library's `includes`: package-relative, each in the source tree and under bin, as -isystem."""
    root = ctx.label.workspace_root
    dirs = []
    for inc in ctx.attr.includes:
        parts = [p for p in [root, ctx.label.package, inc] if p and p != "."]
        path = "/".join(parts) or "."
        if inc.startswith("/") or ".." in path.split("/"):
            fail("%s: includes: %r leaves the package's repository" % (ctx.label, inc))
        dirs.append(path)
    return dirs + [ctx.bin_dir.path + "/" + d for d in dirs]

def _included_dirs(compilation_context):
    """(clang flag, directory) per include directory, in the order cc_library's compiles pass them."""
    out = []
    for flag, dirs in [
        ("-iquote", compilation_context.quote_includes),
        ("-I", compilation_context.includes),
        ("-isystem", compilation_context.system_includes),
        ("-F", compilation_context.framework_includes),
    ]:
        out += [(flag, d) for d in dirs.to_list()]
    return out

def rule_headers(ctx, cc):
    """The headers, include directories and defines of a compiling rule's sources.

    Args:
      ctx: a rule context with the attributes of attrs.compile_attrs.
      cc: struct from cc.cc_setup.

    Returns:
      struct(
        public: CompilationContext this rule exports (before deps'),
        headers: depset of File every compile reads,
        defines: depset of string, then local_defines: list of string (-D),
        dirs: list of (flag, directory, bin-relative rest or None),
        mappable: whether every directory is a source path or under this
          configuration's bin directory, so that path mapping can rewrite it.
      )
    """

    # Bazel 4.2's cc_common.compile has no textual_hdrs: they go in as public
    # headers, under the same include prefixes; no header is compiled alone
    # here (no srcs), so the difference does not show in the compiles.
    own, _ = cc_common.compile(
        actions = ctx.actions,
        feature_configuration = cc.features,
        cc_toolchain = cc.toolchain,
        name = ctx.label.name,
        public_hdrs = ctx.files.hdrs + ctx.files.textual_hdrs,
        include_prefix = ctx.attr.include_prefix,
        strip_include_prefix = ctx.attr.strip_include_prefix,
        defines = ctx.attr.defines,
        system_includes = _system_includes(ctx),
    )
    deps = [d[CcInfo] for d in ctx.attr.deps]
    private = [d[CcInfo] for d in ctx.attr.implementation_deps]
    merged = cc_common.merge_cc_infos(
        direct_cc_infos = [CcInfo(compilation_context = own)],
        cc_infos = deps + private,
    ).compilation_context
    bin = ctx.bin_dir.path
    dirs = []
    mappable = True
    for flag, d in _included_dirs(merged):
        rest = None
        if d == bin:
            rest = ""
        elif d.startswith(bin + "/"):
            rest = d[len(bin):]
        elif d.startswith("bazel-out/") or d.startswith("/"):
            # Another configuration's outputs, or outside the execroot.
            mappable = False
        dirs.append((flag, d, rest))
    return struct(
        public = own,
        headers = merged.headers,
        defines = merged.defines,
        local_defines = ctx.attr.local_defines,
        dirs = dirs,
        mappable = mappable,
    )

def _root(file):
    # Under path mapping (Bazel 7+), a File's root in map_each is the mapped one.
    return file.root.path

def add_header_flags(args, headers, anchor):
    """Adds -D, -iquote, -I, -isystem and -F flags as cc_library's compiles have them.

    Directories under the bin directory are written as the root of anchor (an
    output of the action) and the rest, so that path mapping rewrites them
    like the action's File arguments.

    Args:
      args: the action's Args.
      headers: struct from rule_headers.
      anchor: File, an output of the action in this configuration's bin directory.
    """
    args.add_all(headers.defines, format_each = "-D%s")
    args.add_all(headers.local_defines, format_each = "-D%s")
    for flag, d, rest in headers.dirs:
        joined = flag in ("-I", "-F")
        if rest == None:
            if joined:
                args.add(flag + d)
            else:
                args.add_all([flag, d])
            continue
        pattern = "%s" + rest.replace("%", "%%")
        if joined:
            args.add_all([anchor], map_each = _root, format_each = flag + pattern)
        else:
            args.add_all([anchor], map_each = _root, format_each = pattern, before_each = flag)
