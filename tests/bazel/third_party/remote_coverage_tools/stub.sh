#!/bin/sh
# Offline stand-in: only `bazel coverage` needs the real coverage tools.
echo "remote_coverage_tools stub: coverage is not available offline" >&2
exit 1
