#!/usr/bin/env bash
# check_device_archive.sh ARCHIVE TARGET=DEVICE_ARCHIVE...
# clang-offload-bundler-22 -type=a -unbundle of the same heterogeneous
# archive makes byte-identical per-target device archives.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang-offload-bundler-22
need llvm-ar-22
archive=$1
shift
[ "$#" -ge 1 ] || fail "$archive: no device archives to compare"
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/ar.XXXXXX")
members=$(llvm-ar-22 t "$archive" | wc -l)
[ "$members" -ge 1 ] || fail "$archive has no members"
for pair in "$@"; do
  t=${pair%%=*} ours=${pair#*=}
  clang-offload-bundler-22 -type=a -unbundle -targets="hip-amdgcn-amd-amdhsa--$t" \
    -input="$archive" -output="$work/llvm.a"
  cmp "$work/llvm.a" "$ours" || fail "device archive for $t differs from clang-offload-bundler-22's"
  [ "$(llvm-ar-22 t "$ours" | wc -l)" -ge 1 ] || fail "device archive for $t has no members"
  echo "ok: $t: $(llvm-ar-22 t "$ours" | tr '\n' ' ')"
done
