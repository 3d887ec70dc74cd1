#!/usr/bin/env bash
# The Bazel-level benchmark (make bench-bazel): per-(source × target)
# actions of rules_offload against one multi-arch clang action per source,
# then a remote cache and a remote executor (Bazel's own worker). Prints a
# markdown report (docs/performance.md keeps one) and writes the chart.
#
#   tests/bench/bazel.sh                      S = 12, 3/5/8 targets
#   BENCH_SOURCES=24 tests/bench/bazel.sh     docs/performance.md's run (32 minutes on 2 cores)
#   BENCH_SOURCES=2 BENCH_CURVE=1 BENCH_MANY=50 tests/bench/bazel.sh   smoke run
#
# Environment: BENCH_DIR (work directory, default $TMPDIR/offload-bazel-bench,
# emptied first), BENCH_SOURCES, BENCH_CURVE (AMD targets per point, e.g.
# 1,3,6), BENCH_MANY (targets analysed), BENCH_JOBS, BENCH_SVG (chart path,
# default docs/bazel-bench.svg), BENCH_REMOTE=0 (skip the worker).
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
dir="${BENCH_DIR:-${TMPDIR:-/tmp}/offload-bazel-bench}"
rm -rf "$dir"
mkdir -p "$dir/bin"
go build -trimpath -o "$dir/bin/offload" ./tool/offload
ln -sf offload "$dir/bin/clang-offload-bundler"
go build -o "$dir/bin/bazelbench" ./tests/bench/bazelbench

worker=""
[ "${BENCH_REMOTE:-1}" = 0 ] || worker="$root/tests/remote/worker.sh"
exec "$dir/bin/bazelbench" -dir="$dir" -root="$root" -offload="$dir/bin/offload" -worker="$worker" \
  -svg="${BENCH_SVG:-$root/docs/bazel-bench.svg}" -sources="${BENCH_SOURCES:-12}" \
  -curve="${BENCH_CURVE:-1,3,6}" -many="${BENCH_MANY:-1000}" -jobs="${BENCH_JOBS:-2}"
