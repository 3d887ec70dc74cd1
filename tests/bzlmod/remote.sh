# 6. Remote execution (sourced by run.sh; uses its workspace $ws and, when
# check 2 ran, its bazel-bin $main_bin): the HIP and CUDA examples built
# and tested on Bazel 7.7.1's remote worker (tests/remote/worker.sh) in a
# namespace where LLVM 21 and 23, CUDA and ROCm do not exist, in a fresh
# output base. Every non-internal action must run remotely and pass; an
# action reading an SDK file it did not declare fails there.
#
# The C++ toolchain of the remote build is the chroot's GCC, not the
# workspace's CC (LLVM 23's clang, hidden on the worker with the rest of
# LLVM 23): Bazel's auto-configured cc toolchain is not hermetic, and is out
# of scope here as in tests/bazel/remote.sh. That leaves out the OpenMP
# example, whose host half needs LLVM's clang to match libomptarget.

worker_dir="$scratch/worker"
remote_examples=(//hip/... //cuda/...)
if addr=$("$root/tests/remote/worker.sh" up "$worker_dir" 2>"$scratch/worker_up.log"); then
  grep -q '^build:rbe' "$ws/.bazelrc" || grep '^build:rbe' "$root/examples/.bazelrc" >>"$ws/.bazelrc"
  remote_bz() { (cd "$ws" && bazel --output_base="$scratch/ob_remote" "$@"); }
  remote_flags=(--config=rbe --remote_executor="$addr" --repo_env=CC=gcc)
  t1=$(date +%s)
  remote_bz test "${remote_flags[@]}" "${remote_examples[@]}" >"$scratch/remote.log" 2>&1
  st=$?
  t2=$(date +%s)
  procs=$(processes "$scratch/remote.log")
  others=$(ran_locally "$procs")
  n_tests=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$scratch/remote.log")
  # The offload rules' outputs (device code, bundles, fat binaries and
  # their host objects) against check 2's local build, when it ran; the
  # programs themselves differ (linked by GCC here).
  same="not compared (check 2 did not run)"
  if [ -n "$main_bin" ]; then
    remote_bin=$(remote_bz info "${remote_flags[@]}" bazel-bin 2>/dev/null)
    n=0
    diffs=""
    while IFS= read -r f; do
      n=$((n + 1))
      cmp -s "$main_bin/$f" "$remote_bin/$f" || diffs+=" $f"
    done < <(cd "$remote_bin" && find hip cuda -type f \( -path '*/_offload/*' -o -name '*.hipfb' -o -name '*.hipfb.o' \
      -o -name '*.fatbin' -o -name '*.fatbin.o' \) | sort)
    if [ "$n" -gt 0 ] && [ -z "$diffs" ]; then
      same="all $n offload outputs equal check 2's"
    else
      same="offload outputs differing from check 2's ($n compared):${diffs:- none found}"
    fi
  fi
  if [ $st -eq 0 ] && [ -n "$procs" ] && [ -z "$others" ] && grep -q ' remote' <<<"$procs" &&
    [ "$n_tests" -gt 0 ] && [[ $same != offload* ]]; then
    ok "remote execution with the SDKs hidden from the worker: ${remote_examples[*]} built and $n_tests tests passed in $((t2 - t1)) s (${procs#INFO: }); $same"
  else
    bad "remote execution (exit $st; $procs; $same): $(grep -m5 -E 'ERROR|FAILED|error:' "$scratch/remote.log" | tr '\n' ' ')"
  fi
  remote_bz shutdown >/dev/null 2>&1
  "$root/tests/remote/worker.sh" down "$worker_dir"
else
  bad "remote worker: $(tail -5 "$scratch/worker_up.log")"
fi
