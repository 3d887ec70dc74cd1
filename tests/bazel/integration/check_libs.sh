#!/usr/bin/env bash
# check_libs.sh PROGRAM LIBRARY...
#
# Runs a program linked with SDK library targets (cuda_libs.cc, rocm_libs.cc):
# it must exit 0, and each LIBRARY (a soname, or "-" + a soname that must not
# be loaded: a static build) must have been mapped from the test's runfiles
# (Bazel's solib directory, where the repository's copy is linked under its
# soname), not from the machine.
set -euo pipefail
program=$1
shift
out="$TEST_TMPDIR/out"
"$program" >"$out" 2>&1 || { cat "$out"; echo "FAIL: $program exited $?" >&2; exit 1; }
cat "$out"
for lib in "$@"; do
  if [[ $lib == -* ]]; then
    ! grep -q "^loaded .*/${lib#-}\$" "$out" || { echo "FAIL: ${lib#-} loaded by a static build" >&2; exit 1; }
    continue
  fi
  path=$(sed -n "s|^loaded \(.*/$lib\)\$|\1|p" "$out" | head -1)
  [ -n "$path" ] || { echo "FAIL: $lib was not loaded" >&2; exit 1; }
  case $path in
  *_solib_*/*) ;;
  *) echo "FAIL: $lib came from $path ($real), not from the program's solib directory" >&2; exit 1 ;;
  esac
done
echo "PASS: $program: $* from the program's solib directory"
