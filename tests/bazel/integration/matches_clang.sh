#!/usr/bin/env bash
# matches_clang.sh FATBIN CUID SOURCE IMAGE...
# The fat binary Bazel made from per-target actions, with the hermetic
# toolchain's LLVM and ROCm repositories, is byte-identical to the one the
# same clang 22 makes in a single invocation for the same targets and
# compilation unit ID against the same ROCm (both the test's data).
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang++
fatbin=$1 cuid=$2 src=$3
shift 3
rocm=$runfiles/offload_rocm
bitcode=$rocm/amdgcn/bitcode
[ -f "$bitcode/ocml.bc" ] || fail "no ROCm device libraries in $bitcode (data @offload_rocm//:rocm)"
flags=()
for img in "$@"; do
  t=$(target_of "$img")
  p=${t%%:*}
  # ROCm 5.2's headers read __AMDGCN_WAVEFRONT_SIZE, which clang 22 no
  # longer predefines: 32 from gfx10 on, 64 before, per target.
  case $p in gfx1[0-2][0-9][0-9]*) w=32 ;; *) w=64 ;; esac
  flags+=("--offload-arch=$t" "-Xarch_$t" "-D__AMDGCN_WAVEFRONT_SIZE=$w")
done
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clang.XXXXXX")
# -isystem: clang searches --rocm-path's headers after /usr/include. -B: the
# fat binary is clang-offload-bundler's, which clang looks for beside itself.
clang++ -x hip "${flags[@]}" -cuid="$cuid" --rocm-path="$rocm" --hip-path="$rocm" -isystem "$rocm/include" \
  -B "$runfiles/offload_oracles/bin" \
  --rocm-device-lib-path="$bitcode" -mcode-object-version=5 --cuda-device-only \
  -c "$src" -o "$work/clang.hipfb"
cmp "$work/clang.hipfb" "$fatbin" || fail "$fatbin differs from clang-22's own fat binary"
echo "ok: $(basename "$fatbin") is byte-identical to clang++ ${flags[*]} -cuid=$cuid --cuda-device-only -c"
