#!/usr/bin/env bash
# Benchmarks offload against LLVM 22's clang-offload-bundler and
# llvm-offload-binary and against cp, on inputs it builds with clang-22,
# and prints a markdown table (see docs/performance.md).
#
#   tests/bench/run.sh                 full run (about 15 minutes; several GiB in $BENCH_DIR)
#   BENCH_SCALE=small tests/bench/run.sh   smoke run, under 2 minutes
#
# Environment: BENCH_SCALE (full|small), BENCH_DIR (work directory, default
# $TMPDIR/offload-bench-<scale>; inputs are kept there for the next run),
# BENCH_REPS (timed runs per tool), BENCH_ONLY (run cases whose name
# contains this). It is a benchmark, not a test: go test times nothing.
set -euo pipefail

cd "$(dirname "$0")/../.."
scale="${BENCH_SCALE:-full}"
dir="${BENCH_DIR:-${TMPDIR:-/tmp}/offload-bench-$scale}"

missing=()
for t in clang-22 clang++-22 clang-offload-bundler-22 llvm-offload-binary-22 llvm-ar-22 cp go; do
	command -v "$t" >/dev/null || missing+=("$t")
done
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (Debian package time)")
if ((${#missing[@]})); then
	echo "run.sh: missing ${missing[*]} (make deps installs LLVM 22)" >&2
	exit 1
fi

mkdir -p "$dir/bin"
go build -trimpath -o "$dir/bin/offload" ./tool/offload
for n in clang-offload-bundler llvm-offload-binary; do
	ln -sf offload "$dir/bin/$n"
done
go build -o "$dir/bin/offloadbench" ./tests/bench/offloadbench

exec "$dir/bin/offloadbench" -scale="$scale" -dir="$dir" -bin="$dir/bin" \
	${BENCH_REPS:+-reps="$BENCH_REPS"} ${BENCH_ONLY:+-only="$BENCH_ONLY"}
