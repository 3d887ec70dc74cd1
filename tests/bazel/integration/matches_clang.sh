#!/usr/bin/env bash
# matches_clang.sh FATBIN CUID SOURCE IMAGE...
# The fat binary Bazel made from per-target actions is byte-identical to the
# one clang-22 makes in a single invocation for the same targets and
# compilation unit ID.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang++-22
fatbin=$1 cuid=$2 src=$3
shift 3
archs=()
for img in "$@"; do archs+=("--offload-arch=$(target_of "$img")"); done
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clang.XXXXXX")
clang++-22 -x hip "${archs[@]}" -cuid="$cuid" -nogpuinc -nogpulib --cuda-device-only \
  -c "$src" -I"$(dirname "$src")" -o "$work/clang.hipfb"
cmp "$work/clang.hipfb" "$fatbin" || fail "$fatbin differs from clang-22's own fat binary"
echo "ok: $(basename "$fatbin") is byte-identical to clang++-22 ${archs[*]} -cuid=$cuid --cuda-device-only -c"
