"""Constants shared by the rules and action emitters."""

# Toolchain types, as Labels so they resolve to this repository wherever the
# rules are loaded from.
OFFLOAD_TOOLCHAIN_TYPE = Label("//rules:toolchain_type")
CLANG_TOOLCHAIN_TYPE = Label("//rules:clang_toolchain_type")

# One mnemonic per action kind, with one prefix, so users can select them
# (--strategy=OffloadCompile=..., aquery 'mnemonic("Offload.*", ...)').
MNEMONICS = struct(
    compile = "OffloadCompile",
    device_link = "OffloadDeviceLink",
    bundle = "OffloadBundle",
    package = "OffloadPackage",
    embed = "OffloadEmbed",
    unbundle_archive = "OffloadUnbundleArchive",
    wrap = "OffloadWrap",
    host_compile = "OffloadHostCompile",
    openmp_compile = "OffloadOpenMPCompile",
    fatbinary = "OffloadFatbinary",
    hip_fatbin_object = "OffloadHipFatbinObject",
    registration_record = "OffloadRegistrationRecord",
)

# Actions whose command lines carry paths only as File arguments can run
# with --experimental_output_paths=strip (config segments removed).
SUPPORTS_PATH_MAPPING = {"supports-path-mapping": "1"}

# ctx.actions.run(toolchain = ...) names the toolchain whose tool an action
# runs (automatic exec groups). Bazel 4.2 rejects the keyword; Bazel 7 added
# native.starlark_doc_extract, which serves as the feature test here.
_HAS_ACTION_TOOLCHAIN = hasattr(native, "starlark_doc_extract")

def toolchain_kwargs(toolchain_type):
    """Keyword arguments that tie an action to its toolchain where Bazel can."""
    if _HAS_ACTION_TOOLCHAIN:
        return {"toolchain": toolchain_type}
    return {}

# How each bundler file type is produced from a source, per offload kind:
# clang flags, the image kind it yields and the file extension (the one
# llvm-offload-binary maps to that image kind where there is one).
IMAGE_TYPES = {
    "o": struct(flags = ["-c"], image_kind = "object", ext = ".o"),
    "bc": struct(flags = ["-c", "-emit-llvm"], image_kind = "bitcode", ext = ".bc"),
    "ll": struct(flags = ["-S", "-emit-llvm"], image_kind = "llvm-ir", ext = ".ll"),
    "s": struct(flags = ["-S"], image_kind = "assembly", ext = ".s"),
    "i": struct(flags = ["-E"], image_kind = "preprocessed", ext = ".i"),
    "ii": struct(flags = ["-E"], image_kind = "preprocessed", ext = ".ii"),
    "cui": struct(flags = ["-E"], image_kind = "preprocessed", ext = ".cui"),
    "hipi": struct(flags = ["-E"], image_kind = "preprocessed", ext = ".hipi"),
}

# The host triple clang writes in HIP fat binaries.
DEFAULT_HOST_TRIPLE = "x86_64-unknown-linux-gnu"

_HEX = "0123456789abcdef"

def stable_id(s):
    """16 hex digits derived from s; the same on every machine and Bazel.

    Args:
      s: string.

    Returns:
      string.
    """
    out = ""
    for salt in ("a", "b"):
        h = hash(salt + s) % 4294967296
        for _ in range(8):
            out += _HEX[h % 16]
            h //= 16
    return out

def repository_path(label):
    """The execroot-relative directory of a label's package.

    For a target at the root of an external repository this is the
    repository's directory (external/<name>, canonical name under bzlmod):
    the --rocm-path and --cuda-path the toolchain passes come from here, never
    from a hard-coded string.

    Args:
      label: a Label.

    Returns:
      string; "." for the root package of the main repository.
    """
    parts = [p for p in [label.workspace_root, label.package] if p]
    return "/".join(parts) or "."
