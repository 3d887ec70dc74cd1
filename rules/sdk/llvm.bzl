"""offload_llvm_repository: LLVM (clang, lld, the resource directory and LLVM's shared libraries)."""

load(":common.bzl", "ARCHIVE_ATTRS", "exists", "link", "list_dir", "no_workspace_attrs", "realpath", "rules_offload_defs", "sdk_root", "starlark_list", "words", "write_repository")

# Programs clang runs for the offload flows of these rules, linked when the
# installation has them: lld links AMDGPU code objects (clang runs it from
# its own directory), the linker wrappers serve the new offload driver.
_TOOLS = ["lld", "ld.lld", "clang-linker-wrapper", "clang-nvlink-wrapper", "llvm-link"]

def _is_llvm(rctx, root):
    return exists(rctx, root + "/bin/clang")

def _local_candidates(rctx):
    """The install directory of clang-<version> (or clang) found on PATH."""
    found = rctx.which("clang-" + rctx.attr.version if rctx.attr.version else "clang")
    if not found:
        return []

    # /usr/bin/clang-22 -> /usr/lib/llvm-22/bin/clang: the install is two up.
    return [str(rctx.path(realpath(rctx, str(found))).dirname.dirname)]

def _clang_version(rctx, clang):
    res = rctx.execute([clang, "--version"])
    if res.return_code != 0:
        fail("%s --version failed: %s" % (clang, res.stderr))

    # "Debian clang version 22.1.8 (++20250811...)", "clang version 16.0.6"
    ws = words(res.stdout)
    for i, w in enumerate(ws[:-1]):
        if w == "version" and ws[i + 1][:1].isdigit():
            return ws[i + 1].split("-")[0]
    fail("cannot read clang's version from: %s" % res.stdout)

def _is_llvm_library(name):
    for prefix in ("libLLVM", "libclang", "liblld"):
        if name.startswith(prefix):
            return True
    return False

def _llvm_libraries(rctx, root, programs):
    """LLVM's own shared libraries that programs load: {basename: path}.

    ldd lists everything; the C and C++ runtimes belong to the system (as for
    any host toolchain) and are left out.
    """
    libs = {}
    for p in programs:
        res = rctx.execute(["ldd", p])
        if res.return_code != 0:
            continue
        for line in res.stdout.splitlines():
            name, arrow, rest = line.strip().partition(" => ")
            if not arrow or not rest.startswith("/"):
                continue
            path = rest.split(" (")[0]
            if _is_llvm_library(name) or path.startswith(root + "/"):
                libs[name] = path
    return libs

# What a RUNPATH (or RPATH) entry must be for a program under bin/ to find
# the libraries under lib/ next to it, wherever the two are materialized.
_ORIGIN_LIB = ["$ORIGIN/../lib", "${ORIGIN}/../lib", "$ORIGIN/../lib/", "${ORIGIN}/../lib/"]

def _finds_own_libraries(objdump_p):
    """Whether a program finds the LLVM libraries it loads in ../lib from itself.

    Args:
      objdump_p: `objdump -p` of the program (its dynamic section).

    Returns:
      True when it loads no LLVM library, or has $ORIGIN/../lib in its
      RUNPATH or RPATH.
    """
    needs_llvm = False
    search = []
    for line in objdump_p.splitlines():
        ws = words(line)
        if len(ws) != 2:
            continue
        if ws[0] == "NEEDED" and _is_llvm_library(ws[1]):
            needs_llvm = True
        elif ws[0] in ("RUNPATH", "RPATH"):
            search += ws[1].split(":")
    return not needs_llvm or bool([d for d in search if d in _ORIGIN_LIB])

def _needs_library_path(rctx, programs):
    """Whether the programs find the repository's lib/ only through LD_LIBRARY_PATH.

    The repository links each program under bin/ and the LLVM libraries it
    loads under lib/. A program whose RUNPATH is $ORIGIN/../lib (LLVM's own
    builds, apt.llvm.org's packages) finds them there wherever the two
    directories are materialized, a remote worker's execroot included.
    Debian's own clang-21 and clang-23 have no RUNPATH: they load
    libclang-cpp and libLLVM from /usr/lib/x86_64-linux-gnu, files no
    action declares, missing where the SDKs are not installed. (A program's
    RUNPATH serves the libraries it names itself; clang, lld and the
    wrappers name libLLVM and libclang-cpp directly.) Without objdump to
    read the programs, the answer is yes: a library path where none was
    needed costs nothing but the actions' keys.
    """
    objdump = rctx.which("objdump")
    if not objdump:
        return True
    for p in programs:
        res = rctx.execute([objdump, "-p", p])
        if res.return_code != 0 or not _finds_own_libraries(res.stdout):
            return True
    return False

# The OpenMP offload runtime, when the installation has it (Debian's
# libomp-<N>-dev): libomp, libomptarget and its plugins (host CPUs, and the
# GPU plugins that dlopen the CUDA driver or HSA), which libomptarget loads
# by these names.
_OPENMP_RUNTIME = ["libomp.so", "libomptarget.so"] + [
    "libomptarget.rtl.%s%s.so" % (plugin, nextgen)
    for plugin in ("x86_64", "aarch64", "ppc64", "ppc64le", "cuda", "amdgpu")
    for nextgen in ("", ".nextgen")
]

# The OpenMP device runtime of GPU targets, one bitcode file per processor:
# clang links libomptarget-nvptx-sm_XX.bc into every NVPTX device compile,
# the AMDGPU device link takes libomptarget-amdgpu-gfxXXX.bc into its LTO.
_DEVICE_RUNTIME_PREFIXES = ["libomptarget-nvptx-", "libomptarget-amdgpu-"]

def _link_openmp_device_runtime(rctx, root):
    """Links lib/libomptarget-<family>-<processor>.bc, where clang looks for them."""
    found = []
    for name in list_dir(rctx, root + "/lib"):
        if not name.endswith(".bc"):
            continue
        for prefix in _DEVICE_RUNTIME_PREFIXES:
            if name.startswith(prefix):
                rctx.symlink(realpath(rctx, root + "/lib/" + name), "lib/" + name)
                found.append("lib/" + name)
    return sorted(found)

# The OpenMP device runtime of GPU targets from LLVM 20 on, one set per
# offload triple: lib/<triple>/libompdevice.a (bitcode, which the device
# link takes) and lib/<triple>/libomptarget-<family>.bc (which clang links
# into NVPTX compiles), for every processor of the triple.
_DEVICE_RUNTIME_TRIPLES = ["nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"]

def _link_openmp_device_libraries(rctx, root):
    """Links lib/<triple>/libompdevice.a and lib/<triple>/libomptarget-*.bc where the LLVM has them."""
    found = []
    for triple in _DEVICE_RUNTIME_TRIPLES:
        for name in list_dir(rctx, root + "/lib/" + triple):
            if name == "libompdevice.a" or (name.startswith("libomptarget-") and name.endswith(".bc")):
                dest = "lib/%s/%s" % (triple, name)
                rctx.symlink(realpath(rctx, root + "/" + dest), dest)
                found.append(dest)
    return sorted(found)

def _link_openmp_runtime(rctx, root):
    """Links the OpenMP runtime under openmp/lib by the names programs load.

    A shared library is found at run time by its soname (libomptarget.so.16,
    the name the linker records), so the link is named after the real file.
    """
    found = []
    for name in _OPENMP_RUNTIME:
        path = root + "/lib/" + name
        if not exists(rctx, path):
            continue
        real = realpath(rctx, path)
        dest = "openmp/lib/" + rctx.path(real).basename
        rctx.symlink(real, dest)
        found.append(dest)
    return found

def _target_triple(rctx, clang):
    res = rctx.execute([clang, "-print-target-triple"])
    if res.return_code != 0 or not res.stdout.strip():
        fail("%s -print-target-triple failed: %s" % (clang, res.stderr))
    return res.stdout.strip()

def _predefines_wavefront_size(rctx, clang):
    res = rctx.execute([
        clang,
        "-x",
        "hip",
        "--offload-arch=gfx906",
        "--offload-device-only",
        "-nogpuinc",
        "-nogpulib",
        "-E",
        "-dM",
        "-o",
        "-",
        "/dev/null",
    ])
    return res.return_code == 0 and "__AMDGCN_WAVEFRONT_SIZE" in res.stdout

def _hip_declares_rcp_f16(rctx, resource_dir):
    """Whether clang's HIP wrapper declares __llvm_amdgcn_rcp_f16 (LLVM 16 does, 22 not)."""
    declares = resource_dir + "/include/__clang_hip_libdevice_declares.h"
    return exists(rctx, declares) and "__llvm_amdgcn_rcp_f16" in rctx.read(declares)

def _offload_llvm_repository_impl(rctx):
    root, where = sdk_root(rctx, "LLVM", "OFFLOAD_LLVM_PATH", _local_candidates(rctx), _is_llvm)
    if not root:
        fail(("offload_llvm_repository %s: no LLVM found (%s; clang-%s on PATH). Install it " +
              "(apt-get install clang-%s lld-%s), or give path or urls.") % (
            rctx.name,
            where,
            rctx.attr.version or "<version>",
            rctx.attr.version or "22",
            rctx.attr.version or "22",
        ))
    clang = realpath(rctx, root + "/bin/clang")
    version = _clang_version(rctx, clang)
    if rctx.attr.version and version.split(".")[0] != rctx.attr.version.split(".")[0]:
        fail("offload_llvm_repository %s: %s has clang %s, not %s" % (rctx.name, where, version, rctx.attr.version))

    # The driver under both names (clang++ links C++ for HIP and CUDA).
    rctx.symlink(clang, "bin/clang")
    rctx.symlink(clang, "bin/clang++")
    programs = [clang]
    tools = []
    for t in _TOOLS:
        if exists(rctx, root + "/bin/" + t):
            link(rctx, root + "/bin/" + t, "bin/" + t)
            programs.append(realpath(rctx, root + "/bin/" + t))
            tools.append("bin/" + t)
    libs = _llvm_libraries(rctx, realpath(rctx, root), programs)
    for name, path in sorted(libs.items()):
        link(rctx, path, "lib/" + name)
    library_path = bool(libs) and _needs_library_path(rctx, programs)

    # The resource directory, lib/clang/<major> (or <full version> before LLVM 16).
    major = version.split(".")[0]
    resource = [d for d in list_dir(rctx, root + "/lib/clang") if d == major or d == version]
    if not resource:
        fail("offload_llvm_repository %s: %s has no resource directory lib/clang/%s" % (rctx.name, where, major))
    rctx.symlink(realpath(rctx, root + "/lib/clang/" + resource[0]), "lib/clang/" + resource[0])
    openmp = _link_openmp_runtime(rctx, root)
    device_runtime = _link_openmp_device_runtime(rctx, root)
    device_libraries = _link_openmp_device_libraries(rctx, root)

    write_repository(rctx, """# Generated by offload_llvm_repository from {where}.
load("{defs}", "offload_llvm")

package(default_visibility = ["//visibility:public"])

offload_llvm(
    name = "llvm",
    clang = "bin/clang",
    lld = {lld},
    libs = glob(["lib/*.so*"]),
    library_path = {library_path},
    openmp_runtime = {openmp},
    hip_declares_rcp_f16 = {rcp},
    openmp_device_runtime = {device_runtime},{device_libraries}
    predefines_wavefront_size = {wave},
    resource_dir = glob(["lib/clang/{resource}/**"]),
    target_triple = "{triple}",
    tools = {tools} + ["bin/clang++"],
    version = "{version}",
)

exports_files(glob(["bin/*"]))
""".format(
        where = where,
        defs = rules_offload_defs(),
        lld = '"bin/lld"' if "bin/lld" in tools else "None",
        library_path = library_path,
        openmp = starlark_list(openmp),
        device_runtime = starlark_list(device_runtime),
        # Written only where the LLVM has them: an LLVM 16 repository's BUILD
        # file stays as it was.
        device_libraries = "\n    openmp_device_libraries = %s," % starlark_list(device_libraries) if device_libraries else "",
        triple = _target_triple(rctx, clang),
        rcp = _hip_declares_rcp_f16(rctx, root + "/lib/clang/" + resource[0]),
        wave = _predefines_wavefront_size(rctx, clang),
        resource = resource[0],
        tools = starlark_list(tools),
        version = version,
    ))

_ATTRS = {
    "path": attr.string(
        doc = "The LLVM install directory (the one holding bin/clang), e.g. /usr/lib/llvm-22. " +
              "Default: $OFFLOAD_LLVM_PATH, else the directory of clang-<version> found on PATH.",
    ),
    "version": attr.string(
        doc = "The LLVM major version to find on PATH (clang-22) and to require. Empty: clang on PATH.",
        default = "22",
    ),
}
_ATTRS.update(ARCHIVE_ATTRS)

offload_llvm_repository = repository_rule(
    implementation = _offload_llvm_repository_impl,
    doc = """An LLVM installation as a repository: @<name>//:llvm is an offload_llvm.

From the machine (path, $OFFLOAD_LLVM_PATH, or clang-<version> on PATH) or
from an archive (urls + sha256, e.g. an LLVM release tarball). The repository
links the driver, lld and the linker wrappers, the LLVM shared libraries they
load (found with ldd: libLLVM, libclang-cpp) and the resource directory, and
records clang's version and default target triple. When the programs do
not find those libraries next to themselves (no RUNPATH of $ORIGIN/../lib,
as in Debian's own LLVM packages), actions that run them get LD_LIBRARY_PATH
set to the repository's lib/. With the OpenMP offload
runtime installed (libomp-<N>-dev), it links libomp, libomptarget and its
plugins (host CPUs, CUDA, AMDGPU) too, for OpenMP libraries to link, and
the OpenMP device runtime of GPUs: up to LLVM 19 lib/libomptarget-nvptx-sm_XX.bc
and lib/libomptarget-amdgpu-gfxXXX.bc, whose names say which processors
OpenMP offloads to; from LLVM 20 on (liboffload-<N>-dev)
lib/<triple>/libompdevice.a and lib/<triple>/libomptarget-<family>.bc, for
every processor of the triple. Fetched again when the environment variables change
or on `bazel sync --configure`.""",
    attrs = _ATTRS,
    environ = ["OFFLOAD_LLVM_PATH", "PATH"],
    configure = True,
)

# This SDK for the registry (registry.bzl documents the fields). No toolchain
# attribute of its own: offload_clang_toolchain's llvm is the compiler itself,
# exclusive with clang and path.
LLVM_SDK = struct(
    name = "llvm",
    repository_rule = offload_llvm_repository,
    default_repository = "offload_llvm",
    tag_attrs = {"version": attr.string(default = "22")},
    workspace_attrs = no_workspace_attrs,
    toolchain = None,
)
