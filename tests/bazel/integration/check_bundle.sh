#!/usr/bin/env bash
# check_bundle.sh TYPE KIND TARGETS BUNDLE IMAGE...
# TARGETS (comma-separated, from BUILD.bazel: what the rule was asked for)
# says which device images there must be: exactly one IMAGE per target,
# each non-empty. clang-offload-bundler-22 must list the bundle's entries
# (the host entry and one per target) and unbundle each target to exactly
# the image Bazel compiled. A rule that drops a target, or builds no image
# at all, fails here even though its bundle and images agree.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang-offload-bundler-22
type=$1 kind=$2 targets=$3 bundle=$4
shift 4
want_targets=$(tr , '\n' <<<"$targets" | sed '/^$/d' | sort)
[ -n "$want_targets" ] || fail "no targets given: the test would prove nothing"
# A bundle of no device images proves nothing about them.
[ "$#" -ge 1 ] || fail "$bundle: no images to compare (the rule built none)"
got_targets=$(for img in "$@"; do target_of "$img"; done | sort)
[ "$got_targets" = "$want_targets" ] ||
  fail "images for targets:"$'\n'"$got_targets"$'\n'"want one for each of:"$'\n'"$want_targets"
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bundle.XXXXXX")

listed=$(clang-offload-bundler-22 -type="$type" -list -input="$bundle" | sort)
want="host-x86_64-unknown-linux-gnu-"
while read -r t; do
  want+=$'\n'"${kind}-amdgcn-amd-amdhsa--$t"
done <<<"$want_targets"
want=$(sort <<<"$want")
[ "$listed" = "$want" ] || fail "$bundle lists:"$'\n'"$listed"$'\n'"want:"$'\n'"$want"

for img in "$@"; do
  [ -s "$img" ] || fail "$img is empty"
  id="${kind}-amdgcn-amd-amdhsa--$(target_of "$img")"
  clang-offload-bundler-22 -type="$type" -unbundle -targets="$id" -input="$bundle" -output="$work/out"
  cmp "$work/out" "$img" || fail "$bundle: entry $id differs from $img"
  echo "ok: $(basename "$bundle") $id = $(basename "$(dirname "$img")")/$(basename "$img") ($(stat -c %s "$img") bytes)"
done
