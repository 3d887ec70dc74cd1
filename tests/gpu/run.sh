#!/usr/bin/env bash
# Runs the programs of a bundle made by tests/gpu/build.sh and checks each
# one's outcome:
#
#   tests/gpu/run.sh [--expect=passed|no-device] BUNDLE
#
# --expect=passed (default): on a GPU machine, every program must print
#   "<name>: PASSED: ..." and exit 0.
# --expect=no-device: the dry run on a machine without a GPU (make test):
#   every program must get as far as the CUDA runtime's own error, print
#   "<name>: no device: ..." and exit 2, so registration and the first
#   runtime call happened.
# Prints the machine (GPU, driver, C library), then a Markdown table row
# per program for docs/gpu-runs.md, then "N passed, N failed"; exits 1
# when any program's outcome is not the expected one.
#
# A program is run with the machine's own C and C++ libraries first; if it
# cannot start with them (too old), again with the bundle's lib/ through
# the bundle's dynamic loader, and the row says so.
#
# The OpenMP programs: the bundle's openmp-runtime.tar.xz (LLVM 16's libomp,
# libomptarget, CUDA plugins and libLLVM-16) is unpacked into a temporary
# directory on LD_LIBRARY_PATH, which is where libomptarget 16 looks for its
# plugins. Its CUDA plugin dlopens libcuda.so, unversioned, which driver
# installs may lack (they ship libcuda.so.1): a directory with a libcuda.so
# link to the libcuda.so.1 that ldconfig knows comes first. Every program
# runs with OMP_TARGET_OFFLOAD=MANDATORY: a target region that cannot
# offload aborts instead of running on the host.
set -uo pipefail
expect=passed
case "${1:-}" in
  --expect=*) expect=${1#--expect=}; shift ;;
esac
bundle=${1:?usage: run.sh [--expect=passed|no-device] BUNDLE}
case "$expect" in
  passed) want_line=PASSED want_status=0 ;;
  no-device) want_line="no device" want_status=2 ;;
  *) echo "run.sh: --expect must be passed or no-device, not $expect" >&2; exit 2 ;;
esac

out=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$out" "$scratch"' EXIT
export OMP_TARGET_OFFLOAD=MANDATORY
if [ -f "$bundle/openmp-runtime.tar.xz" ]; then
  tar -C "$scratch" -xJf "$bundle/openmp-runtime.tar.xz"
  mkdir -p "$scratch/libcuda"
  libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/{print $NF; exit}')
  # Containers may mount the driver's libraries where ldconfig does not look.
  for dir in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib/wsl/lib; do
    [ -z "$libcuda" ] && [ -e "$dir/libcuda.so.1" ] && libcuda=$dir/libcuda.so.1
  done
  if [ -n "$libcuda" ]; then
    ln -s "$libcuda" "$scratch/libcuda/libcuda.so"
  fi
  echo "OpenMP runtime: $scratch/openmp; libcuda.so -> ${libcuda:-nothing (ldconfig -p lists no libcuda.so.1)}"
  export LD_LIBRARY_PATH="$scratch/libcuda:$scratch/openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "machine: $(uname -m), ${gpu:-no NVIDIA GPU visible}, $(ldd --version 2>/dev/null | head -1)"
echo
echo "| program | label | outcome | detail |"
echo "|---|---|---|---|"
passed=0
failed=0
while read -r name label own; do
  [ -n "$name" ] || continue
  line_want=$want_line status_want=$want_status
  # A third column expects another outcome (a program built to fail).
  if [ "$own" = FAILED ] && [ "$expect" = passed ]; then
    line_want=FAILED status_want=1
  fi
  how=""
  timeout 300 "$bundle/bin/$name" >"$out" 2>&1
  status=$?
  if [ "$status" -eq 127 ] || grep -q "version \`GLIBC\|version \`GLIBCXX\|version \`CXXABI" "$out"; then
    how=" (bundle's C library)"
    timeout 300 "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$bundle/lib" "$bundle/bin/$name" >"$out" 2>&1
    status=$?
  fi
  line=$(grep -m1 -E "^[a-z_]+: (PASSED|FAILED|no device|failed)" "$out" || tail -1 "$out")
  line=${line//|/\\|}
  if [ "$status" -eq "$status_want" ] && [[ "$line" == *": $line_want"* ]]; then
    passed=$((passed + 1))
    verdict=ok
    [ "$status_want" -ne "$want_status" ] && verdict="ok (expected $own)"
  else
    failed=$((failed + 1))
    verdict="**unexpected** (exit $status)"
  fi
  echo "| $name | \`$label\` | $verdict$how | ${line:-no output} |"
done <"$bundle/programs.txt"
echo
echo "$passed passed, $failed failed (expected: $expect)"
[ "$failed" -eq 0 ]
