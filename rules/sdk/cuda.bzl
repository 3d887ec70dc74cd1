"""offload_cuda_repository: CUDA headers, libdevice, ptxas, fatbinary, nvlink and cudart."""

load("//rules/private:providers.bzl", "OffloadCudaInfo")
load(":common.bzl", "ARCHIVE_ATTRS", "define_value", "exists", "find_shared_library", "first_existing", "link", "link_shared_library", "list_dir", "no_workspace_attrs", "realpath", "rules_offload_defs", "sdk_root", "starlark_list", "words", "write_not_found", "write_repository")
load(":cuda_libraries.bzl", "CCCL_DEBIAN_PACKAGES", "CUDA_LIBRARIES", "CUFFT_STATIC_ERROR", "cuda_header_excludes")
load(":libraries.bzl", "all_missing", "library_loads", "library_targets", "missing_text")
load(":pip.bzl", "PIP_ATTRS", "pip_package", "pip_tree", "wants_pip")
load(":redist.bzl", "REDIST_ATTRS", "fetch_redist", "wants_redist")

_CANDIDATES = ["/usr/local/cuda", "/usr/lib/cuda"]
_TOOLS = ["ptxas", "fatbinary", "nvlink"]
_LIB_DIRS = ["/lib64", "/lib", "/targets/x86_64-linux/lib"]

# Debian's nvidia-cuda-toolkit keeps the headers in /usr/include, among
# everything else's; the packages that own them say which they are: the
# toolkit's, and Thrust's, CUB's and libcu++'s (their own packages), so that
# no CUDA compile reads an undeclared /usr/include/thrust.
_DEBIAN_HEADER_PACKAGES = ["nvidia-cuda-dev"] + CCCL_DEBIAN_PACKAGES

def _is_cuda(rctx, root):
    return exists(rctx, root + "/include/cuda.h")

def _is_dir(rctx, path):
    # Bazel 4.2's path has no is_dir.
    return rctx.execute(["test", "-d", path]).return_code == 0

def _link_include(rctx, include):
    """include/ of a toolkit tree, with CUDA 13's include/cccl/* beside the rest.

    CUDA 13 moved Thrust, CUB, libcu++ and nv/ into include/cccl, and nvcc
    adds -isystem include/cccl to every compile; clang does not. Linked at
    include/, they are where CUDA 12 had them: found by the toolchain's
    -isystem <cuda>/include (CUDA 13's own cuda_fp16.hpp includes
    <nv/target>), and the same header_dirs (thrust, cub, cuda, nv) make
    :thrust, :cub and :libcudacxx for both.
    """
    cccl = include + "/cccl"
    if not exists(rctx, cccl + "/thrust") and not exists(rctx, cccl + "/cuda"):
        rctx.symlink(include, "include")
        return

    # nvcc searches -I include before -isystem include/cccl: a name both
    # have (CUDA 13.0 has an include/nv of its own) is include's, and where
    # both are directories, their files are merged the same way.
    pending = [("include", [include, cccl])]
    for _ in range(10000):  # Starlark has no while; a few nested directories
        if not pending:
            break
        dest, sources = pending.pop()
        names = {}
        for src in sources:
            for e in list_dir(rctx, src):
                if not (dest == "include" and src == include and e == "cccl"):
                    names.setdefault(e, []).append(src + "/" + e)
        for e in sorted(names):
            paths = names[e]
            if len(paths) > 1 and all([_is_dir(rctx, p) for p in paths]):
                pending.append((dest + "/" + e, paths))
            else:
                rctx.symlink(paths[0], dest + "/" + e)

def _link_headers(rctx, root):
    """include/: the installation's include directory, or Debian's CUDA headers one by one.

    Returns:
      "own" (a self-contained toolkit tree), "debian" (headers, tools and
      libraries spread over /usr), or "" when there is no cuda_runtime.h.
    """
    include = realpath(rctx, root + "/include")
    if exists(rctx, include + "/cuda_runtime.h"):
        _link_include(rctx, include)
        return "own"

    # One process for all of them (a few thousand files): each file and its
    # real path, tab-separated.
    res = rctx.execute(["sh", "-c", "dpkg-query -L \"$@\" 2>/dev/null | while read -r f; do " +
                                    "case $f in /usr/include/*) [ -f \"$f\" ] && printf '%s\\t%s\\n' \"$f\" \"$(readlink -f \"$f\")\";; esac; done", "sh"] +
                       _DEBIAN_HEADER_PACKAGES)
    headers = []
    for line in res.stdout.splitlines():
        h, _, real = line.partition("\t")
        if h and real:
            headers.append(h)
            rctx.symlink(real, "include/" + h[len("/usr/include/"):])
    return "debian" if "/usr/include/cuda_runtime.h" in headers else ""

def _find_tool(rctx, root, layout, name):
    """bin/<name> of the installation; for Debian's layout only, the one on PATH.

    A self-contained tree (an archive, /usr/local/cuda) never borrows the
    machine's tools: that would put undeclared host files into the SDK.
    """
    own = root + "/bin/" + name
    if exists(rctx, own):
        return own
    if layout != "debian":
        return None
    found = rctx.which(name)
    return str(found) if found else None

def _lib_dirs(root, layout):
    dirs = [root + d for d in _LIB_DIRS]
    if layout == "debian":
        dirs.append("/usr/lib/x86_64-linux-gnu")
    return dirs

def _find_library(rctx, root, layout, name):
    if name.endswith(".so"):
        return find_shared_library(rctx, _lib_dirs(root, layout), name)
    return first_existing(rctx, [d + "/" + name for d in _lib_dirs(root, layout)])

def _archs(rctx, ptxas):
    """sm_XX and compute_XX from ptxas --help (its list of --gpu-name values)."""
    res = rctx.execute([ptxas, "--help"])
    out = []
    for word in words(res.stdout.replace(",", " ").replace(".", " ")):
        w = word.strip("'")
        if (w.startswith("sm_") or w.startswith("compute_")) and w.partition("_")[2][:1].isdigit() and w not in out:
            out.append(w)
    return out

def _version(rctx):
    text = rctx.read("include/cuda.h")
    v = define_value(text, "CUDA_VERSION")
    if not v.isdigit():
        return "unknown"
    return "%d.%d" % (int(v) // 1000, (int(v) % 1000) // 10)

def _pip_fix(major, lib):
    """missing_reason's fix for a CUDA from pip wheels (major "12" or "13"): the package to install."""
    if lib.static and not lib.shared:
        return "NVIDIA's pip wheels have no static libraries; use the shared one, or a CUDA toolkit"
    package = pip_package(lib.component, major) if lib.component else None
    return "pip install " + package if package else None

def _offload_cuda_repository_impl(rctx):
    pip = ""
    if wants_pip(rctx):
        root, where, pip = pip_tree(rctx)
        if not _is_cuda(rctx, root):
            fail("CUDA repository %s: %s hold no include/cuda.h; pip install %s" % (rctx.name, where, pip_package("cuda_cudart", pip)))
    elif wants_redist(rctx):
        root, where = fetch_redist(rctx)
        if not _is_cuda(rctx, root):
            fail("CUDA repository %s: %s hold no include/cuda.h (is cuda_cudart among them?)" % (rctx.name, where))
    else:
        root, where = sdk_root(rctx, "CUDA", "CUDA_PATH", _CANDIDATES, _is_cuda)
    if not root:
        _not_found(rctx, "no include/cuda.h; " + where +
                         " (Debian: add contrib non-free to apt's sources, apt-get install nvidia-cuda-toolkit)")
        return
    layout = _link_headers(rctx, root)
    if not layout:
        _not_found(rctx, "%s has cuda.h but not cuda_runtime.h" % where)
        return
    libdevice = root + "/nvvm/libdevice"
    if exists(rctx, libdevice):
        rctx.symlink(realpath(rctx, libdevice), "nvvm/libdevice")
    tools = {}
    for t in _TOOLS:
        found = _find_tool(rctx, root, layout, t)
        if found:
            link(rctx, found, "bin/" + t)
            tools[t] = '"bin/%s"' % t
    static = _find_library(rctx, root, layout, "libcudart_static.a")
    if static:
        link(rctx, static, "lib64/libcudart_static.a")
    shared = _find_library(rctx, root, layout, "libcudart.so")
    if shared:
        link_shared_library(rctx, shared, "lib64/libcudart.so")

    version = _version(rctx)
    libraries, _ = library_targets(
        rctx,
        "CUDA %s (%s)" % (version, where),
        CUDA_LIBRARIES,
        str(rctx.path("include")),
        _lib_dirs(root, layout),
        "lib64",
        redist = wants_redist(rctx),
        version = version,
        fix = _pip_fix if pip else None,
        fix_arg = pip,
    )

    write_repository(rctx, """# Generated by offload_cuda_repository from {where}.
load("{defs}", "offload_cuda")
{library_loads}
package(default_visibility = ["//visibility:public"])

offload_cuda(
    name = "cuda",
    archs = {archs},
    cudart_shared = glob(["lib64/libcudart.so*"]),
    cudart_static = glob(["lib64/libcudart_static.a"]),
    fatbinary = {fatbinary},
    headers = glob(["include/**"]),
    libdevice = glob(["nvvm/libdevice/*.bc"]),
    nvlink = {nvlink},
    ptxas = {ptxas},
    version = "{version}",
)

exports_files(glob(["bin/*", "lib64/*"]))

# The libraries, named as rules_cuda and XLA name them. The runtime's
# headers (everything in include/ that no library below claims):
cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/**"], exclude = {header_excludes}),
    includes = ["include"],
)
{libraries}{cufft_static}""".format(
        library_loads = library_loads(),
        header_excludes = starlark_list(cuda_header_excludes()),
        libraries = libraries,
        cufft_static = missing_text("cufft_static", CUFFT_STATIC_ERROR),
        where = where,
        defs = rules_offload_defs(),
        archs = starlark_list(_archs(rctx, str(rctx.path("bin/ptxas"))) if "ptxas" in tools else []),
        fatbinary = tools.get("fatbinary", "None"),
        nvlink = tools.get("nvlink", "None"),
        ptxas = tools.get("ptxas", "None"),
        version = version,
    ))

def _not_found(rctx, why):
    write_not_found(rctx, "cuda", why, library_loads(), all_missing(CUDA_LIBRARIES, why) + missing_text("cuda_headers", why))

_ATTRS = {
    "path": attr.string(
        doc = "The CUDA root (holding include/cuda.h), e.g. /usr/local/cuda-12.4 or /usr/lib/cuda " +
              "(Debian). Default: $CUDA_PATH, else /usr/local/cuda, else /usr/lib/cuda.",
    ),
}
_ATTRS.update(ARCHIVE_ATTRS)
_ATTRS.update(REDIST_ATTRS)
_ATTRS.update(PIP_ATTRS)

_TAG_ATTRS = dict(REDIST_ATTRS)
_TAG_ATTRS.update(PIP_ATTRS)

offload_cuda_repository = repository_rule(
    implementation = _offload_cuda_repository_impl,
    doc = """A CUDA toolkit as a repository: @<name>//:cuda is an offload_cuda.

Lays out what clang's --cuda-path expects: include (for Debian's layout, the
headers of nvidia-cuda-dev linked one by one out of /usr/include),
nvvm/libdevice, bin/ptxas, bin/fatbinary, bin/nvlink, lib64/libcudart*.
Records the CUDA version (cuda.h) and the sm_XX/compute_XX its ptxas
supports. From archives: either one archive holding a toolkit tree (urls), or
NVIDIA's redistributable components (redist_json, or components), extracted
into one tree; see redist.bzl. From NVIDIA's pip wheels in a site-packages
directory (site_packages; CUDA 12's per-component and CUDA 13's nvidia/cu13
layouts), linked into one tree; see pip.bzl. CUDA 13's include/cccl
(Thrust, CUB, libcu++) is linked at include/, where CUDA 12 had it, because
clang, unlike nvcc, does not search include/cccl. Without a CUDA the
repository still exists and says why, so that only CUDA targets fail.""",
    attrs = _ATTRS,
    environ = ["CUDA_PATH", "PATH"],
    configure = True,
)

# What the toolchain makes of an offload_cuda: CUDA's flags and files, ptxas.

def _cuda_flags(cuda):
    """CUDA flags for a CUDA installation (--ptxas-path goes to cubin compiles only)."""
    return [
        # As for ROCm: clang searches --cuda-path's include directory after
        # /usr/include, where Debian's nvidia-cuda-dev puts CUDA's headers.
        "-isystem",
        cuda.root + "/include",
        "--cuda-path=" + cuda.root,
        # clang warns about every CUDA release newer or older than it knows.
        "-Wno-unknown-cuda-version",
    ]

def _toolchain_contribution(cuda, llvm, version):  # buildifier: disable=unused-variable
    return struct(
        copts = _cuda_flags(cuda),
        files = depset([cuda.ptxas] if cuda.ptxas else [], transitive = [cuda.files]),
        ptxas = cuda.ptxas.path if cuda.ptxas else None,
    )

# This SDK for the registry (registry.bzl documents the fields).
CUDA_SDK = struct(
    name = "cuda",
    repository_rule = offload_cuda_repository,
    default_repository = "offload_cuda",
    tag_attrs = _TAG_ATTRS,
    workspace_attrs = no_workspace_attrs,
    toolchain = struct(
        provider = OffloadCudaInfo,
        kind = "cuda",
        doc = "A CUDA installation (offload_cuda, e.g. @offload_cuda//:cuda): headers, libdevice, " +
              "ptxas for cubins.",
        contribution = _toolchain_contribution,
    ),
)
