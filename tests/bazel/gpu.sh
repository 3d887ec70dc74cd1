# Sourced by run.sh: the GPU programs of tests/gpu (make gpu-check), built
# and packed by tests/gpu/build.sh in this run's output base, then run here,
# where there is no GPU: each must reach the CUDA runtime's "no device"
# error (registration before main and the first runtime call happened).
# On a GPU machine the same bundle must print PASSED (docs/gpu-runs.md).
gpu_bundle="$scratch/gpu-bundle"
if XZ_LEVEL=0 OUTPUT_BASE="$scratch/ob_main" "$root/tests/gpu/build.sh" "$gpu_bundle" >"$scratch/gpu-build.log" 2>&1; then
  ok "tests/gpu: $(tail -1 "$scratch/gpu-build.log")"
  if "$gpu_bundle/run.sh" --expect=no-device "$gpu_bundle" >"$scratch/gpu-run.log" 2>&1; then
    ok "tests/gpu dry run: $(tail -1 "$scratch/gpu-run.log")"
  else
    bad "tests/gpu dry run:"$'\n'"$(cat "$scratch/gpu-run.log")"
  fi
else
  bad "tests/gpu/build.sh failed: $(tail -5 "$scratch/gpu-build.log")"
fi
