"""Helpers shared by the SDK repository rules.

Each SDK repository lays an installation out in the shape clang expects
(bin/, lib/clang/N, include/hip, amdgcn/bitcode, nvvm/libdevice, ...) with
symbolic links to the installation's files, or to an archive extracted into
the repository. Bazel digests what the links point at, so the bytes of the
SDK, not its path, go into action keys.
"""

# Attributes every SDK repository rule takes for the archive form.
ARCHIVE_ATTRS = {
    "urls": attr.string_list(
        doc = "Archive URLs (mirrors of one file). With them, the SDK comes from the archive " +
              "instead of the machine.",
    ),
    "sha256": attr.string(doc = "The archive's SHA-256; required with urls."),
    "strip_prefix": attr.string(doc = "A directory prefix to strip from the archive's files."),
    "type": attr.string(doc = "The archive type (\"tar.xz\", \"zip\", ...) when the URL does not say."),
}

def sdk_root(rctx, what, env, candidates, accept):
    """Where the installation is: the archive, the path attribute, env, or a candidate.

    Args:
      rctx: repository_ctx with ARCHIVE_ATTRS and a path attribute.
      what: "LLVM", "ROCm" or "CUDA", for messages.
      env: the environment variable that names the installation.
      candidates: list of absolute paths tried in order when nothing is given.
      accept: function(rctx, path string) -> bool: whether path holds the SDK.

    Returns:
      (path string or None, description string): the description names the
      archive or the path, or where it was looked for when nothing was found.
    """
    if rctx.attr.urls:
        if not rctx.attr.sha256:
            fail("%s repository %s: urls need sha256 (the archive's SHA-256)" % (what, rctx.name))
        rctx.download_and_extract(
            url = rctx.attr.urls,
            output = "_archive",
            sha256 = rctx.attr.sha256,
            type = rctx.attr.type,
            stripPrefix = rctx.attr.strip_prefix,
        )
        root = str(rctx.path("_archive"))
        if not accept(rctx, root):
            fail("%s repository %s: the archive %s holds no %s installation (after strip_prefix %r)" % (
                what,
                rctx.name,
                rctx.attr.urls[0],
                what,
                rctx.attr.strip_prefix,
            ))
        return root, "archive " + rctx.attr.urls[0]
    given = rctx.attr.path or rctx.os.environ.get(env, "")
    if given:
        if not accept(rctx, given):
            fail("%s repository %s: %s (from %s) holds no %s installation" % (
                what,
                rctx.name,
                given,
                "path" if rctx.attr.path else "$" + env,
                what,
            ))
        return given, given
    for c in candidates:
        if accept(rctx, c):
            return c, c
    if not candidates:
        return None, "looked in $%s" % env
    return None, "looked in $%s, %s" % (env, ", ".join(candidates))

def exists(rctx, path):
    return rctx.path(path).exists

def realpath(rctx, path):
    """The path with every symbolic link resolved (readlink -f).

    Args:
      rctx: repository_ctx.
      path: string.

    Returns:
      string.
    """
    res = rctx.execute(["readlink", "-f", path])
    if res.return_code != 0 or not res.stdout.strip():
        fail("cannot resolve %s: %s" % (path, res.stderr))
    return res.stdout.strip()

def link(rctx, target, name):
    """A link at name to target's real file, so that Bazel digests the file itself."""
    rctx.symlink(realpath(rctx, target), name)

def _soname(rctx, path):
    """The DT_SONAME of a shared library (objdump -p), or None."""
    objdump = rctx.which("objdump")
    if not objdump:
        return None
    res = rctx.execute([objdump, "-p", path])
    for line in res.stdout.splitlines():
        ws = words(line)
        if len(ws) == 2 and ws[0] == "SONAME":
            return ws[1]
    return None

def link_shared_library(rctx, target, name):
    """Links a shared library at name, and beside it under its soname.

    A program records the soname (libamdhip64.so.5), not the name it was
    linked by, and its loader looks for that file in the program's RUNPATH:
    the library Bazel links and ships in runfiles must be the soname's.

    Args:
      rctx: repository_ctx.
      target: the library's path.
      name: the link-time name in the repository ("lib/libamdhip64.so").
    """
    link(rctx, target, name)
    directory, _, basename = name.rpartition("/")
    soname = _soname(rctx, realpath(rctx, target))
    if soname and soname != basename and "/" not in soname:
        link(rctx, target, directory + "/" + soname)

def first_existing(rctx, paths):
    for p in paths:
        if exists(rctx, p):
            return p
    return None

def find_shared_library(rctx, dirs, name):
    """A shared library by its link-time name, or by a versioned name where only those exist.

    NVIDIA's pip wheels ship lib/libcublas.so.12 without the libcublas.so
    link a toolkit has; the shortest versioned name (the soname's) stands in.

    Args:
      rctx: repository_ctx.
      dirs: directories searched in order.
      name: "libcublas.so".

    Returns:
      path string or None.
    """
    for d in dirs:
        if exists(rctx, d + "/" + name):
            return d + "/" + name
    for d in dirs:
        versioned = [f for f in list_dir(rctx, d) if f.startswith(name + ".") and f[len(name) + 1:][:1].isdigit()]
        if versioned:
            return d + "/" + sorted(versioned, key = _by_length)[0]
    return None

def _by_length(s):
    return (len(s), s)

def list_dir(rctx, path):
    """Base names in a directory.

    Args:
      rctx: repository_ctx.
      path: string.

    Returns:
      sorted list of string; [] when the directory does not exist.
    """
    p = rctx.path(path)
    if not p.exists:
        return []
    return sorted([c.basename for c in p.readdir()])

def words(text):
    """Whitespace-separated words (Bazel 4.2's split() needs a separator)."""
    return [w for w in text.replace("\t", " ").replace("\n", " ").replace("\r", " ").split(" ") if w]

def define_value(text, name):
    """The value of a macro a header defines.

    Args:
      text: the header's text.
      name: the macro.

    Returns:
      string: value of `#define name value`, or "".
    """
    for line in text.splitlines():
        w = words(line)
        if len(w) >= 3 and w[0] == "#define" and w[1] == name:
            return w[2]
    return ""

def starlark_list(items):
    """A list literal for a generated BUILD file."""
    return "[" + ", ".join(['"%s"' % i for i in items]) + "]"

def rules_offload_defs():
    """The load label of defs.bzl as this repository's generated BUILD files must write it."""
    return str(Label("//rules:defs.bzl"))

def write_repository(rctx, build):
    """Writes the repository's WORKSPACE and BUILD.bazel files.

    Args:
      rctx: repository_ctx.
      build: the BUILD.bazel text.
    """
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", build)

def write_not_found(rctx, rule, why, loads = "", libraries = ""):
    """A repository whose one target says that the SDK is missing, and why.

    Only targets that need the SDK fail then, at analysis time.

    Args:
      rctx: repository_ctx.
      rule: "rocm" or "cuda": the offload_<rule> target to write, named so.
      why: where it was looked for and how to install it.
      loads: load statements the libraries need.
      libraries: BUILD text of the SDK's library targets (each failing with why).
    """
    write_repository(rctx, """# Generated by offload_{rule}_repository: no SDK found.
load("{defs}", "offload_{rule}")
{loads}
package(default_visibility = ["//visibility:public"])

offload_{rule}(
    name = "{rule}",
    error = {why},
    found = False,
)
""".format(rule = rule, defs = rules_offload_defs(), why = repr(why), loads = loads) + libraries)

def no_workspace_attrs(offload):  # buildifier: disable=unused-variable
    """An SDK's workspace_attrs (registry.bzl) when rules_offload_toolchains() passes it nothing."""
    return {}
