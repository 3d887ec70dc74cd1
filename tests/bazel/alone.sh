# Sourced at the top of a step of run.sh that may also run alone
# (`tests/bazel/clangd.sh`): when run.sh has not set things up, gives the
# step run.sh's helpers (ok, bad, bz, bazel_flags), a scratch directory and
# output base of its own and a fresh bin/offload, and sets step_alone;
# alone_end, at the step's end, then shuts that output base down, removes
# the scratch directory and prints the tally.
step_alone=""
if [ -z "${scratch:-}" ]; then
  set -uo pipefail
  here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  root=$(cd "$here/../.." && pwd)
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/rules_offload_$(basename "${BASH_SOURCE[1]}" .sh).XXXXXX")
  bz() { bazel --output_base="$scratch/ob_main" "$@"; }
  bazel_flags=(--jobs=2)
  passed=0 failed=0
  ok() { passed=$((passed + 1)); echo "PASS: $1"; }
  bad() { failed=$((failed + 1)); echo "FAIL: $1"; }
  (cd "$root" && go build -trimpath -o bin/offload ./tool/offload) || exit 1
  step_alone=1
fi

alone_end() {
  [ -n "$step_alone" ] || return 0
  (cd "$here" && bz shutdown >/dev/null 2>&1)
  chmod -R u+w "$scratch" 2>/dev/null
  rm -rf "$scratch"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
