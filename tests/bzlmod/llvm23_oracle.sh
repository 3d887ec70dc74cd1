# Check 7 of the bzlmod leg (sourced by run.sh; uses its ok, bad, scratch
# and root): the tool against LLVM 23's own tools. The cross-checks whose
# oracle OFFLOAD_LLVM_ORACLE picks (tests/bundler, tests/packager,
# lib/wrapper, tool/offload: the bundler, packager and wrapper conformance
# tests and the ports of LLVM's lit tests) run with clang-offload-bundler-23,
# llvm-offload-binary-23, llvm-offload-wrapper-23 and clang-23 of the
# chroot; lib/bitcode reads clang-23's bitcode. Tests tied to another LLVM
# release (LLVM 14's wrapper, clang-16's driver, the 22 help texts) skip
# here and run in the Bazel 4.2.3 leg; a skip for a missing LLVM 23 tool
# fails the check.
oracle_llvm=23
t_oracle=$(date +%s)
oracle_log=$scratch/llvm23_oracle.log
oracle_pkgs=(./tests/bundler ./tests/packager ./lib/wrapper ./lib/bitcode ./tool/offload)
if (cd "$root" && OFFLOAD_LLVM_ORACLE=$oracle_llvm go test -count=1 -v "${oracle_pkgs[@]}") >"$oracle_log" 2>&1; then
  missing23=$(grep -oE "[a-z+-]+-$oracle_llvm is not on PATH" "$oracle_log" | sort -u | paste -sd' ')
  n_oracle=$(grep -cE '^\s*--- PASS' "$oracle_log")
  if [ -z "$missing23" ] && [ "$n_oracle" -gt 0 ]; then
    ok "the tool against LLVM 23's tools (OFFLOAD_LLVM_ORACLE=23): $n_oracle tests passed, $(grep -cE '^\s*--- SKIP' "$oracle_log") tied to other LLVM releases skipped ($(($(date +%s) - t_oracle))s)"
  else
    bad "the tool against LLVM 23's tools: $n_oracle passed; missing: ${missing23:-none}"
  fi
else
  bad "the tool against LLVM 23's tools: $(grep -E '^(--- FAIL|FAIL)' "$oracle_log" | head -5 | paste -sd' ')"
fi
