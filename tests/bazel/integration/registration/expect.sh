#!/bin/bash
# expect.sh STATUS TEST MESSAGE...: runs an offload_registration_test;
# passes when it exits with STATUS (1: the check failed, 0: it passed) and
# its report has every MESSAGE.
set -uo pipefail
want_status=$1
test=$2
shift 2
out=$("$test" 2>&1)
status=$?
echo "$out"
if [ "$status" -ne "$want_status" ]; then
  echo "FAIL: $test exited $status, want $want_status" >&2
  exit 1
fi
for want in "$@"; do
  if ! grep -qF -- "$want" <<<"$out"; then
    echo "FAIL: $test's report lacks: $want" >&2
    exit 1
  fi
done
echo "ok: exit $status with every expected message"
