# An architecture-specific CUDA target through the rules (sourced by
# run.sh; uses its ok, bad, bz, ws, scratch and root): a program whose
# library targets sm_90, sm_90a and compute_90a (tests/bzlmod/sm90a: a
# kernel with a Hopper-only body) builds with clang-23 and CUDA 12.4, its
# registration test passes (the images are sm_90, sm_90a and compute_90a),
# and under -c opt its fat binary equals the .nv_fatbin of clang++-23 -O2
# -c with the same cuid, byte for byte: offload fatbin --cuda-version=12.4
# marks the sm_90a entries as fatbinary 12.4 does (docs/nvfatbin.md).
# Needs llvm-objcopy-23 and CUDA at /usr/lib/cuda (Debian's layout).
sm90a_check() {
  local pkg=$ws/sm90a work=$scratch/sm90a t1 cuid ours why=""
  mkdir -p "$pkg" "$work"
  if ! (cd "$root" && go build -o "$work/offload" ./tool/offload) >"$work/go.log" 2>&1; then
    bad "sm_90a: go build of the offload tool: $(tail -3 "$work/go.log")"
    return
  fi
  cp "$root"/tests/bzlmod/sm90a/*.cu "$root"/tests/bzlmod/sm90a/*.h "$root"/tests/bzlmod/sm90a/*.cc "$pkg/"
  cp "$root/tests/bzlmod/sm90a/BUILD.in" "$pkg/BUILD.bazel"
  t1=$(date +%s)
  if ! bz test -c opt //sm90a:all >"$work/test.log" 2>&1; then
    bad "sm_90a: bazel test -c opt //sm90a:all: $(grep -m5 -E 'ERROR|FAIL|error' "$work/test.log")"
    return
  fi
  cuid=$(bz aquery -c opt 'mnemonic("OffloadHostCompile", //sm90a:hopper)' 2>/dev/null |
    grep -oE -- "-cuid=[0-9a-f]+" | head -1 | cut -d= -f2)
  ours="$(bz info -c opt bazel-bin 2>/dev/null)/sm90a/_offload/hopper/hopper.fatbin"
  if [ -z "$cuid" ] || [ ! -f "$ours" ]; then
    bad "sm_90a: no cuid ('$cuid') or no fat binary at $ours"
    return
  fi
  (cd "$pkg" && clang++-23 -x cuda -O2 -c --offload-arch=sm_90 --offload-arch=sm_90a --cuda-include-ptx=sm_90a \
    --cuda-path=/usr/lib/cuda -cuid="$cuid" hopper.cu -o "$work/clang.o") >"$work/clang.err" 2>&1 ||
    why+=" clang++-23: $(tail -2 "$work/clang.err")"
  [ -n "$why" ] || llvm-objcopy-23 --dump-section .nv_fatbin="$work/clang.fatbin" "$work/clang.o" "$work/stripped.o" ||
    why+=" no .nv_fatbin in clang's object"
  [ -n "$why" ] || cmp -s "$work/clang.fatbin" "$ours" || why+=" the rules' fat binary differs from clang++-23's"
  # Not a vacuous match: the entries must be named sm_90a.
  [ -n "$why" ] || [ "$("$work/offload" inspect "$ours" | grep -c 'arch sm_90a')" -eq 2 ] ||
    why+=" offload inspect does not list two sm_90a entries: $("$work/offload" inspect "$ours")"
  if [ -z "$why" ]; then
    ok "sm_90a: //sm90a:hopper_registration_test passes; the fat binary of sm_90, sm_90a and compute_90a equals clang++-23 -O2 -c's .nv_fatbin byte for byte ($(wc -c <"$ours") bytes, $(($(date +%s) - t1))s)"
  else
    bad "sm_90a:$why"
  fi
}
sm90a_check
