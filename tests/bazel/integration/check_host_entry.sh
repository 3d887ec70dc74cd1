#!/usr/bin/env bash
# check_host_entry.sh BUNDLE HOST_OBJECT
# clang-22 unbundles a bundled object's host half by its driver's own triple
# (clang++ -print-target-triple): that entry must be the host object.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need clang-offload-bundler-22
need clang++
bundle=$1 host=$2
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/host.XXXXXX")
id="host-$(clang++ -print-target-triple)-"
clang-offload-bundler-22 -type=o -list -input="$bundle" | grep -qxF "$id" ||
  fail "$bundle has no entry $id: $(clang-offload-bundler-22 -type=o -list -input="$bundle" | tr '\n' ' ')"
clang-offload-bundler-22 -type=o -unbundle -targets="$id" -input="$bundle" -output="$work/host.o"
cmp "$work/host.o" "$host" || fail "$bundle: entry $id is not $host"
echo "ok: $(basename "$bundle") $id = $(basename "$host") ($(stat -L -c %s "$host") bytes)"
