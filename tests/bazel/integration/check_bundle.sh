#!/usr/bin/env bash
# check_bundle.sh TYPE KIND BUNDLE IMAGE...
# clang-offload-bundler-22 must list the bundle's entries (the host entry and
# one per image) and unbundle each target to exactly the image Bazel compiled.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang-offload-bundler-22
type=$1 kind=$2 bundle=$3
shift 3
# A bundle of no device images proves nothing about them.
[ "$#" -ge 1 ] || fail "$bundle: no images to compare (the rule built none)"
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bundle.XXXXXX")

listed=$(clang-offload-bundler-22 -type="$type" -list -input="$bundle" | sort)
want="host-x86_64-unknown-linux-gnu-"
for img in "$@"; do
  want+=$'\n'"${kind}-amdgcn-amd-amdhsa--$(target_of "$img")"
done
want=$(sort <<<"$want")
[ "$listed" = "$want" ] || fail "$bundle lists:"$'\n'"$listed"$'\n'"want:"$'\n'"$want"

for img in "$@"; do
  id="${kind}-amdgcn-amd-amdhsa--$(target_of "$img")"
  clang-offload-bundler-22 -type="$type" -unbundle -targets="$id" -input="$bundle" -output="$work/out"
  cmp "$work/out" "$img" || fail "$bundle: entry $id differs from $img"
  echo "ok: $(basename "$bundle") $id = $(basename "$(dirname "$img")")/$(basename "$img") ($(stat -c %s "$img") bytes)"
done
