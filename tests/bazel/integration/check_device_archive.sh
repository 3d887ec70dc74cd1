#!/usr/bin/env bash
# check_device_archive.sh ARCHIVE MEMBERS TARGET=DEVICE_ARCHIVE...
# MEMBERS (comma-separated, from BUILD.bazel) names the bundled objects the
# heterogeneous ARCHIVE must hold, exactly. For each TARGET,
# clang-offload-bundler-22 -type=a -unbundle of the same archive must make
# a byte-identical device archive, holding one non-empty member per bundled
# object, named after that object and the target as LLVM names them. A rule
# that drops a source, or a target's code, fails here even though LLVM's
# unbundling of its (short) archive agrees with ours.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang-offload-bundler-22
need llvm-ar-22
archive=$1 members=$2
shift 2
want_members=$(tr , '\n' <<<"$members" | sed '/^$/d' | sort)
[ -n "$want_members" ] || fail "no members given: the test would prove nothing"
[ "$#" -ge 1 ] || fail "$archive: no device archives to compare"
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/ar.XXXXXX")
got_members=$(llvm-ar-22 t "$archive" | sort)
[ "$got_members" = "$want_members" ] ||
  fail "$archive holds:"$'\n'"$got_members"$'\n'"want:"$'\n'"$want_members"
for pair in "$@"; do
  t=${pair%%=*} ours=${pair#*=}
  clang-offload-bundler-22 -type=a -unbundle -targets="hip-amdgcn-amd-amdhsa--$t" \
    -input="$archive" -output="$work/llvm.a"
  cmp "$work/llvm.a" "$ours" || fail "device archive for $t differs from clang-offload-bundler-22's"
  device=$(llvm-ar-22 t "$ours")
  [ "$(wc -l <<<"$device")" -eq "$(wc -l <<<"$want_members")" ] ||
    fail "device archive for $t holds:"$'\n'"$device"$'\n'"want one member for each of:"$'\n'"$want_members"
  # LLVM's name: <object>-<bundle ID with ':' as '_'><object>.<ext>.
  while read -r m; do
    stem=${m%.o}
    name=$(grep -F -- "$stem-" <<<"$device" | grep -F -- "--${t//:/_}" || true)
    [ "$(wc -l <<<"$name")" -eq 1 ] && [ -n "$name" ] ||
      fail "device archive for $t: no single member for $m and $t in:"$'\n'"$device"
    [ "$(llvm-ar-22 p "$ours" "$name" | wc -c)" -gt 0 ] || fail "device archive for $t: $name is empty"
  done <<<"$want_members"
  echo "ok: $t: $(tr '\n' ' ' <<<"$device")"
done
