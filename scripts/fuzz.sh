#!/usr/bin/env bash
# Runs each Go fuzz target of the module for a fixed time (default 10s),
# one at a time: go test -fuzz takes one target per package. Targets are
# found with go test -list, so new ones are fuzzed without editing this.
# New failing inputs are kept under the package's testdata/fuzz, where
# go test replays them as regression tests. Times under ~5s can end in
# "context deadline exceeded" on a busy 2-core machine: the fuzzer did not
# finish its baseline run, which is not a finding. Minimising a failing or
# new input gets MINIMIZETIME (default 1s) instead of Go's 60s, which took
# all but 3 s of a 60 s run of FuzzWalk and FuzzDecompressTo.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-10s}"
minimize="${MINIMIZETIME:-1s}"
failed=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target ($time)"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime "$minimize" "$pkg"; then
			failed=1
		fi
	done
done
exit "$failed"
