# The pass/fail tally of both Bazel legs (tests/bazel/run.sh,
# tests/bzlmod/run.sh), sourced by each: ok and bad count a check and print
# it; tally_end prints the summary line CI and people read, and returns
# non-zero when anything failed. Needs $start (the leg's start, seconds).
passed=0
failed=0
failures=()

ok() {
  passed=$((passed + 1))
  echo "PASS: $1"
}

bad() {
  failed=$((failed + 1))
  failures+=("$1")
  echo "FAIL: $1"
}

# tally_end NAME: "NAME took Ns", the failed checks, "N passed, N failed".
tally_end() {
  echo
  echo "$1 took $(($(date +%s) - start))s"
  if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failures[@]}"
  fi
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
