# Helpers for the integration tests (sourced). LLVM 22's own tools are the
# oracle: every check compares our Bazel outputs with what they say or make.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The tools a check runs are the test's data, not the machine's: LLVM 22's
# own tools and cuobjdump from @offload_oracles, clang from the toolchain's
# @offload_llvm. Their directories come first on PATH; need() refuses a tool
# found anywhere else, so a check that forgot its data fails here too, not
# only on a remote worker that lacks the tool.
runfiles=${TEST_SRCDIR:?lib.sh is for Bazel tests}
PATH="$runfiles/offload_oracles/bin:$runfiles/offload_llvm/bin:$PATH"

need() {
  local found
  found=$(command -v "$1") ||
    fail "$1 is not among the test's data (@offload_oracles//:tools, @offload_llvm//:llvm)"
  case $found in
  "$runfiles"/*) ;;
  *) fail "$1 is $found, from PATH, not from the test's data" ;;
  esac
}

# target_of IMAGE: the target name from the image's directory
# (_offload/<rule>/<target with ':' as '_'>/file).
target_of() {
  basename "$(dirname "$1")" | sed 's/_\(xnack\|sramecc\)/:\1/g'
}
