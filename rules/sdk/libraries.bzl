"""An SDK's libraries as cc_library targets of its repository.

Each library of a table (cuda_libraries.bzl, rocm_libraries.bzl) becomes a
target of the SDK repository named as rules_cuda and XLA name it
(@offload_cuda//:cublas, @offload_rocm//:rocrand): its own headers, its
shared library under its soname (the file the program's loader looks for in
Bazel's solib directory) or its static archives, and deps on what the
library needs. Only that library's files are linked into the repository, so
a program digests only the libraries it uses.

A library the installation lacks is still a target: it fails at analysis
time with the reason and the fix (missing_library.bzl).
"""

load(":common.bzl", "exists", "find_shared_library", "link", "realpath", "words")

def library(
        name,
        headers = [],
        header_dirs = [],
        shared = None,
        static = [],
        deps = [],
        linkopts = [],
        defines = [],
        component = None,
        debian = None,
        absent = None,
        links_shared = [],
        added = None,
        removed = None):
    """One library of an SDK table.

    Args:
      name: the target's name ("cublas").
      headers: file names directly under include/ ("cublas_v2.h").
      header_dirs: directories under include/ whose files are the library's ("thrust").
      shared: the dev link of its shared library ("libcublas.so"), linked under its soname.
      static: archives linked in this order ("libcusolver_static.a", "libmetis_static.a").
      deps: targets of the same repository it needs.
      linkopts: flags after it (system libraries a static archive needs).
      defines: what its users compile with.
      component: NVIDIA's redistributable component holding it, for the message when absent.
      debian: the Debian packages that hold it, for the message when absent.
      absent: a message that always applies when the library is missing (no such package).
      links_shared: more shared libraries linked with it, each under its soname: the
        ones it dlopens by name (NVRTC's builtins), so the loader maps the declared copy.
      added: the SDK version ("12.0") that first had it, for the message when an older one lacks it.
      removed: the SDK version ("13.0") that no longer has it, for the message when a newer one lacks it.

    Returns:
      struct.
    """
    return struct(
        name = name,
        headers = headers,
        header_dirs = header_dirs,
        shared = shared,
        static = static,
        deps = deps,
        linkopts = linkopts,
        defines = defines,
        component = component,
        debian = debian,
        absent = absent,
        links_shared = links_shared,
        added = added,
        removed = removed,
    )

def _soname(rctx, path):
    objdump = rctx.which("objdump")
    if not objdump:
        return None
    res = rctx.execute([objdump, "-p", path])
    for line in res.stdout.splitlines():
        ws = words(line)
        if len(ws) == 2 and ws[0] == "SONAME" and "/" not in ws[1]:
            return ws[1]
    return None

def _link_once(rctx, path, name):
    """Links name to path's real file unless an earlier library (or the toolchain's runtime) did."""
    if not rctx.path(name).exists:
        link(rctx, path, name)

def _link_shared(rctx, path, lib_dir):
    """Links path as lib_dir/<basename> and lib_dir/<soname>; returns the soname file's name."""
    basename = path.rpartition("/")[2]
    _link_once(rctx, path, lib_dir + "/" + basename)
    soname = _soname(rctx, realpath(rctx, path))
    if soname and soname != basename:
        _link_once(rctx, path, lib_dir + "/" + soname)
        return lib_dir + "/" + soname
    return lib_dir + "/" + basename

def _first(rctx, dirs, name):
    for d in dirs:
        if exists(rctx, d + "/" + name):
            return d + "/" + name
    return None

def _headers_present(rctx, include, lib):
    if not lib.headers and not lib.header_dirs:
        return True
    names = [h for h in lib.headers + lib.header_dirs if "*" not in h]
    return all([exists(rctx, include + "/" + h) for h in names])

def resolve(rctx, lib, include, lib_dirs, lib_dir):
    """Links one library's files into the repository.

    Args:
      rctx: repository_ctx.
      lib: struct from library().
      include: the repository's include directory as a path string (already laid out).
      lib_dirs: the installation's library directories, searched in order.
      lib_dir: where the repository keeps libraries ("lib64", "lib").

    Returns:
      (srcs list of repository paths, missing list of file names).
    """
    srcs = []
    missing = []
    if not _headers_present(rctx, include, lib):
        missing.append("include/" + (lib.headers + lib.header_dirs)[0])
    for name in ([lib.shared] if lib.shared else []) + lib.links_shared:
        found = find_shared_library(rctx, lib_dirs, name)
        if found:
            srcs.append(_link_shared(rctx, found, lib_dir))
        else:
            missing.append(name)
    for name in lib.static:
        found = _first(rctx, lib_dirs, name)
        if found:
            _link_once(rctx, found, lib_dir + "/" + name)
            srcs.append(lib_dir + "/" + name)
        else:
            missing.append(name)
    return srcs, missing

def _list(items):
    return "[" + ", ".join(['"%s"' % i for i in items]) + "]"

def _hdrs(lib):
    patterns = ["include/" + h for h in lib.headers] + ["include/%s/**" % d for d in lib.header_dirs]
    return "glob(%s)" % _list(patterns) if patterns else "[]"

def cc_library_text(lib, srcs, cc_name = None, extra = ""):
    """The BUILD text of a library found in full (its cc_library named cc_name, default its name)."""
    deps = lib.deps
    return """
cc_library(
    name = "{cc_name}",
    srcs = {srcs},
    hdrs = {hdrs},
    defines = {defines},
    includes = ["include"],
    linkopts = {linkopts},
    deps = {deps},{extra}
)

# Its headers alone (for a genrule or a test's data).
filegroup(
    name = "{name}_headers",
    srcs = {hdrs},
)
""".format(
        name = lib.name,
        cc_name = cc_name or lib.name,
        srcs = _list(srcs),
        hdrs = _hdrs(lib),
        defines = _list(lib.defines),
        linkopts = _list(lib.linkopts),
        deps = _list([":" + d for d in deps]),
        extra = extra,
    )

def missing_text(name, error):
    """The BUILD text of a library the installation lacks: a target that fails with error."""
    return """
offload_missing_library(
    name = "{name}",
    error = {error},
)
""".format(name = name, error = repr(error))

def _version_key(v):
    """"12.4" -> [12, 4]; words that are not numbers count as 0."""
    return [int(p) if p.isdigit() else 0 for p in v.split(".")]

def version_at_least(version, floor):
    """Whether a dotted version is floor or newer ("13.0" >= "12.0")."""
    a, b = _version_key(version), _version_key(floor)
    n = max(len(a), len(b))
    return a + [0] * (n - len(a)) >= b + [0] * (n - len(b))

def missing_reason(sdk, lib, missing, redist, version = "", fix = None, fix_arg = None):
    """Why a library is absent and what to do.

    Args:
      sdk: "CUDA 11.8 (/usr/lib/cuda)" and the like.
      lib: struct from library().
      missing: the file names not found.
      redist: whether the SDK came from NVIDIA's redistributable components.
      version: the SDK's version ("13.0"), to tell a library the version
        never had (lib.added, lib.removed) from one left out.
      fix: function(fix_arg, lib) -> the fix for the SDK's form (a pip package), or None.
      fix_arg: fix's first argument.

    Returns:
      string.
    """
    why = "%s has no %s (missing: %s)" % (sdk, lib.name, ", ".join(missing))
    if version[:1].isdigit():
        if lib.removed and version_at_least(version, lib.removed):
            return why + "; it was removed in %s %s%s" % (sdk.partition(" ")[0], lib.removed, ": " + lib.absent if lib.absent else "")
        if lib.added and not version_at_least(version, lib.added):
            return why + "; " + (lib.absent or "it came with %s %s: use that version or later" % (sdk.partition(" ")[0], lib.added))
    if lib.absent:
        return why + "; " + lib.absent
    how = fix(fix_arg, lib) if fix else None
    if how:
        return why + "; " + how
    if redist and lib.component:
        return why + "; add \"%s\" to redist_components" % lib.component
    if lib.debian:
        return why + "; Debian: apt-get install " + " ".join(lib.debian) + ", or point the repository at an SDK that has it"
    return why

def library_targets(rctx, sdk, libs, include, lib_dirs, lib_dir, redist = False, wrap = None, wrap_arg = None, version = "", fix = None, fix_arg = None):
    """BUILD text for every library of a table, found or not.

    Args:
      rctx: repository_ctx.
      sdk: the SDK's description for messages.
      libs: list of struct from library().
      include: the repository's include directory (a path string).
      lib_dirs: the installation's library directories.
      lib_dir: where the repository keeps libraries.
      redist: whether the SDK came from NVIDIA's components.
      wrap: function(wrap_arg, lib, srcs) -> BUILD text of a target named lib.name over the
        library's cc_library (then named lib.name + "_cc"), or "" for none; or None.
      wrap_arg: wrap's first argument.
      version: the SDK's version, for missing_reason.
      fix: for missing_reason.
      fix_arg: for missing_reason.

    Returns:
      (BUILD text, list of names found).
    """
    out = []
    found = []
    absent = {}
    for lib in libs:
        srcs, missing = resolve(rctx, lib, include, lib_dirs, lib_dir)
        gone = [d for d in lib.deps if d in absent]
        if missing or gone:
            reason = missing_reason(sdk, lib, missing, redist, version, fix, fix_arg) if missing else "%s needs %s, which the SDK lacks: %s" % (lib.name, gone[0], absent[gone[0]])
            absent[lib.name] = reason
            out.append(missing_text(lib.name, reason))
            continue
        found.append(lib.name)
        wrapper = wrap(wrap_arg, lib, srcs) if wrap else ""
        out.append(cc_library_text(lib, srcs, cc_name = lib.name + "_cc" if wrapper else None) + wrapper)
    return "".join(out), found

def all_missing(libs, error):
    """BUILD text when the whole SDK is missing: every library fails with its error."""
    return "".join([missing_text(lib.name, "no SDK for %s: %s" % (lib.name, error)) for lib in libs])

def library_loads():
    """The load statements the library targets need."""
    return 'load("%s", "cc_library")\nload("%s", "offload_missing_library")\nload("%s", "offload_device_code_library")\n' % (
        str(Label("@rules_cc//cc:defs.bzl")),
        str(Label("//rules/sdk:missing_library.bzl")),
        str(Label("//rules/sdk:device_code_library.bzl")),
    )
