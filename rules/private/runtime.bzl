"""Choosing the file of a shared runtime library (kinds/*.bzl: runtime)."""

def shared_library(files, basename):
    """The library to link: the link under the soname (libamdhip64.so.5) if there is one.

    A program records the soname and its loader looks for that file beside
    the program (Bazel's solib directory holds what was linked, under the
    same name); linking libamdhip64.so itself would leave the loader to
    find libamdhip64.so.5 on the machine instead.

    Args:
      files: list of File: the library under its names.
      basename: the unversioned name, "libamdhip64.so".

    Returns:
      File or None.
    """
    versioned = [f for f in files if f.basename.startswith(basename + ".")]
    if versioned:
        return versioned[0]
    for f in files:
        if f.basename == basename:
            return f
    return files[0] if files else None
