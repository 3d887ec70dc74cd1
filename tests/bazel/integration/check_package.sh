#!/usr/bin/env bash
# check_package.sh KIND TRIPLE PACKAGE IMAGE...
# llvm-objdump-22 --offloading lists one image per compiled image with the
# right arch, triple and producer, and llvm-offload-binary-22 extracts each
# to exactly the file Bazel compiled.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need llvm-objdump-22
need llvm-offload-binary-22
kind=$1 triple=$2 pkg=$3
shift 3
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/pkg.XXXXXX")
dump=$(llvm-objdump-22 --offloading "$pkg")
n=$(grep -c '^OFFLOADING IMAGE' <<<"$dump" || true)
[ "$n" = "$#" ] || fail "$pkg has $n images, want $#:"$'\n'"$dump"
for img in "$@"; do
  t=$(target_of "$img")
  arch=${t/compute_/sm_}
  grep -q "^arch *$arch\$" <<<"$dump" || fail "no arch $arch in:"$'\n'"$dump"
  # llvm-offload-binary-22 matches every key but file exactly.
  (cd "$work" && llvm-offload-binary-22 "$OLDPWD/$pkg" --image=file=out,triple="$triple",arch="$arch",kind="$kind")
  cmp "$work/out" "$img" || fail "$pkg: image $arch differs from $img"
  echo "ok: $(basename "$pkg") $triple $arch = $(basename "$img")"
done
grep -q "^producer *$kind\$" <<<"$dump" || fail "producer is not $kind:"$'\n'"$dump"
grep -q "^triple *$triple\$" <<<"$dump" || fail "triple is not $triple"
