#!/usr/bin/env bash
# Sourced by run.sh (or run alone: `tests/bazel/clangd.sh`): clangd-22 opens
# offload sources with the compile_commands.json that offload_compile_commands
# writes (//integration:compile_commands, `bazel run`): the examples' .hip and
# .cu (external repository sources, SDK paths made absolute) and the swap
# test's source (generated headers, include prefixes) each take their command
# from the database and check with no error: no "Cannot find CUDA
# installation", no file not found.
source "$(dirname "${BASH_SOURCE[0]}")/alone.sh"

cdb="$scratch/cdb"
if ! command -v clangd-22 >/dev/null 2>&1; then
  bad "clangd-22 missing (scripts/install-deps.sh installs it)"
elif (cd "$here" && bz run "${bazel_flags[@]}" //integration:compile_commands -- "$cdb") >"$scratch/cdb.log" 2>&1; then
  ok "offload_compile_commands: $(grep -o 'wrote .*' "$scratch/cdb.log")"
  execroot=$(cd "$here" && bz info "${bazel_flags[@]}" execution_root 2>/dev/null)
  for file in "$here/integration/swap/swap.cc" \
    "$execroot/external/rules_offload_examples/hip/vector_add.hip" \
    "$execroot/external/rules_offload_examples/cuda/vector_add.cu"; do
    log="$scratch/clangd_$(basename "$file").log"
    (cd "$here" && timeout 300 clangd-22 --check="$file" --compile-commands-dir="$cdb") >"$log" 2>&1
    if grep -q 'Compile command from CDB is' "$log" && grep -q 'All checks completed, 0 errors' "$log" &&
      ! grep -qiE 'cannot find CUDA installation|file not found|cannot find ROCm' "$log"; then
      ok "clangd-22 --check=${file#"$here"/} with the database: 0 errors"
    else
      bad "clangd-22 --check=$file:"$'\n'"$(grep -E '^E\[|CDB|fallback|All checks' "$log" | head -10)"
    fi
  done
else
  bad "bazel run //integration:compile_commands: $(grep -m5 -E 'ERROR|rror' "$scratch/cdb.log")"
fi

alone_end
