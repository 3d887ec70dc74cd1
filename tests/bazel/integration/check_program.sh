#!/usr/bin/env bash
# check_program.sh KIND PROGRAM SHIM KERNELS_FILE VARS ENTRIES
#
# Runs a vector-add example. Without a GPU (these machines) it must stop at
# its first runtime call with the runtime's own "no device" error, exit 2;
# with one it must compute the right sums, exit 0. Run again under the
# LD_PRELOAD registration shim, it must register exactly the kernels listed in
# KERNELS_FILE (device-side names, one a line: what clang-22 defines as
# kernels when it compiles the program's sources: BUILD.bazel's kernel_names), each
# against the handle the runtime returned for one of its fat binaries, a
# device variable for every prefix in VARS ("-": none), and fat binaries whose entries, as
# clang-offload-bundler-22 (hip) or NVIDIA's cuobjdump (cuda) list them, are
# ENTRIES (comma-separated: bundle entry IDs, or elf:sm_XX / ptx:sm_XX).
# LIBRARIES (optional, "libraries"): the program links shared libraries that
# register fat binaries of their own (rocRAND's): the checks then apply to the
# fat binaries that the program's kernels are registered against, and the
# others are listed but not judged. "subset": the program's sources define
# more kernels than its host code launches (Thrust instantiates kernels in
# device code for device-side calls): every registered kernel must be one
# the sources define, and there must be some.
source "$(dirname "$0")/lib.sh"

kind=$1 program=$2 shim=$3 kernels_file=$4 vars=$5 entries=$6 libraries=${7:-}
out="$TEST_TMPDIR/out"

run() {
  set +e
  "$@" >"$out" 2>&1
  rc=$?
  set -e
  cat "$out"
}

run "$program"
case "$rc" in
0) grep -q "PASSED" "$out" || fail "exit 0 without PASSED" ;;
2) grep -qi "no device" "$out" || fail "exit 2 without the runtime's no-device error" ;;
*) fail "$program exited $rc" ;;
esac
if [ "$kind" = hip ]; then
  [ "$rc" = 0 ] || grep -q "hipErrorNoDevice" "$out" || fail "not HIP's hipErrorNoDevice"
else
  [ "$rc" = 0 ] || grep -q "no CUDA-capable device is detected" "$out" || fail "not CUDA's no-device error"
fi

log="$TEST_TMPDIR/registered"
SHIM_LOG="$log" LD_PRELOAD="$(realpath "$shim")" run "$program"
[ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "under the shim, $program exited $rc"
echo "--- registered:"
cat "$log"

# The handles the runtime gave the fat binaries; a kernel registered
# against anything else (or a null handle) belongs to no fat binary.
handles=$(sed -n "s/^${kind}RegisterFatBinary .* handle=\(0x[0-9a-f]*\)\$/\1/p" "$log" | sort -u)
[ -n "$handles" ] || fail "no fat binary registered with a non-null handle"
kernels=$(sort -u "$kernels_file" | paste -sd, -)
[ -n "$kernels" ] || fail "$kernels_file names no kernel: the test would prove nothing"
fatbins=("$log".fatbin*)
if [ "$libraries" = libraries ]; then
  # The program's own fat binaries: those its kernels are registered against.
  own=$(grep -F -f <(sort -u "$kernels_file" | sed 's/^/RegisterFunction /; s/$/ handle=/') "$log" |
    sed -n 's/.* handle=\(.*\)/\1/p' | sort -u)
  [ -n "$own" ] || fail "none of the program's kernels ($kernels) was registered"
  fatbins=()
  for h in $own; do
    f=$(sed -n "s/^${kind}RegisterFatBinary .* file=\([^ ]*\) handle=$h\$/\1/p" "$log")
    [ -n "$f" ] || fail "no fat binary dump for handle $h"
    fatbins+=("$f")
  done
  echo "--- the libraries' fat binaries, not judged: $(grep -c "^${kind}RegisterFatBinary" "$log") registered in all"
  grep -E "^${kind}RegisterFunction [^ ]+ handle=($(paste -sd'|' <<<"$own"))\$" "$log" >"$log.own"
  log_functions="$log.own"
  handles=$own
else
  log_functions="$log"
fi
registered=$(sed -n "s/^${kind}RegisterFunction \([^ ]*\) handle=.*/\1/p" "$log_functions" | sort | paste -sd, -)
if [ "$libraries" = subset ]; then
  [ -n "$registered" ] || fail "no kernel registered"
  extra=$(comm -23 <(tr , '\n' <<<"$registered") <(sort -u "$kernels_file") | paste -sd, -)
  [ -z "$extra" ] || fail "kernels registered that the sources do not define: $extra"
  [ "$(tr , '\n' <<<"$registered" | sort | uniq -d)" = "" ] || fail "a kernel registered twice: $registered"
  kernels=$registered
else
  [ "$registered" = "$kernels" ] || fail "kernels registered: ${registered:-none}; want each of the sources' once: $kernels"
fi
while read -r k h; do
  grep -qx "$h" <<<"$handles" || fail "kernel $k registered against $h, not a registered fat binary's handle ($handles)"
done < <(sed -n "s/^${kind}RegisterFunction \([^ ]*\) handle=\(.*\)/\1 \2/p" "$log_functions")
[ "$vars" != - ] || vars=""
for v in ${vars//,/ }; do
  grep -q "^${kind}RegisterVar $v" "$log" || fail "no device variable $v* registered"
done

got=""
for f in "${fatbins[@]}"; do
  [ -s "$f" ] || fail "empty fat binary dump $f"
  if [ "$kind" = hip ]; then
    need clang-offload-bundler-22
    got+=$(clang-offload-bundler-22 -list -type=o -input="$f")$'\n'
  else
    need cuobjdump
    got+=$(cuobjdump -lelf -lptx "$f" | sed -n 's/^\(ELF\|PTX\) file.*\.\(sm_[0-9a-z]*\)\.\(cubin\|ptx\)$/\1:\2/p' |
      tr 'A-Z' 'a-z')$'\n'
  fi
done
got=$(echo "$got" | sed '/^$/d' | sort | paste -sd, -)
want=$(echo "${entries//,/$'\n'}" | sort | paste -sd, -)
[ "$got" = "$want" ] || fail "fat binary entries: got $got, want $want"
echo "PASS: $program: $rc, kernels $kernels against fat binary handles $(paste -sd, - <<<"$handles"), entries $want"
