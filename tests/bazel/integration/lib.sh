# Helpers for the integration tests (sourced). LLVM 22's own tools are the
# oracle: every check compares our Bazel outputs with what they say or make.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

need() {
  command -v "$1" >/dev/null 2>&1 || fail "$1 is not installed (Debian package llvm-22 / clang-22)"
}

# target_of IMAGE: the target name from the image's directory
# (_offload/<rule>/<target with ':' as '_'>/file).
target_of() {
  basename "$(dirname "$1")" | sed 's/_\(xnack\|sramecc\)/:\1/g'
}
