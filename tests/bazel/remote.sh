# Remote execution (sourced by run.sh after sdk_archives.sh; uses its user
# workspace, digest_outputs and the machine's outputs in h6_local.sums):
#   R1 the HIP, CUDA and OpenMP examples build, and the OpenMP tests pass,
#      on Bazel's remote worker (tests/remote/worker.sh) in a namespace where
#      LLVM 22, ROCm, CUDA and LLVM 16's OpenMP device runtime do not exist:
#      every non-internal action runs remotely, the HIP and CUDA outputs
#      equal the local build's file for file, and the OpenMP GPU example
#      (saxpy: gfx90a, sm_70, sm_90, x86_64) links an image per target there
#      and its test passes (its kernels are named after the inodes of the
#      worker's copies of the sources, so its bytes are not compared);
#   R2 a toolchain that names clang by an absolute path (an undeclared SDK
#      file) builds locally and fails on that worker;
#   R3 the integration tests pass on that worker too: the LLVM tools and
#      cuobjdump they compare against are their data (@offload_oracles), as
#      are clang and the SDKs they run, and the programs they run find the
#      HIP and CUDA runtimes they link in their runfiles.

worker_dir="$scratch/worker"

remote_bz() { (cd "$user" && bazel --output_base="$scratch/ob_remote" "$@"); }
# The README workspace of H4 has the README's .bazelrc block; remote
# execution adds the rbe config rules/README.md gives (examples/.bazelrc).
grep -q '^build:rbe' "$user/.bazelrc" || grep '^build:rbe' "$root/examples/.bazelrc" >>"$user/.bazelrc"
if addr=$("$root/tests/remote/worker.sh" up "$worker_dir" 2>"$scratch/worker_up.log"); then
  remote_flags=("${bazel_flags[@]}" --config=rbe --remote_executor="$addr")
  t0=$(date +%s)
  remote_bz test "${remote_flags[@]}" //hip/... //cuda/... //openmp/... >"$scratch/r1.log" 2>&1
  st=$?
  t1=$(date +%s)
  # "INFO: 130 processes: 34 internal, 96 remote."
  procs=$(processes "$scratch/r1.log")
  others=$(ran_locally "$procs")
  remote_bin=$(remote_bz info "${remote_flags[@]}" bazel-bin 2>/dev/null)
  digest_outputs "$remote_bin" >"$scratch/r1.sums"
  n=$(wc -l <"$scratch/h6_local.sums")
  omp_images=0
  for t in gfx90a sm_70 sm_90 x86_64-pc-linux-gnu; do
    [ -s "$remote_bin/openmp/_offload/saxpy_device_link/$t/saxpy_device_link.o" ] && omp_images=$((omp_images + 1))
  done
  if [ $st -eq 0 ] && [ -n "$procs" ] && [ -z "$others" ] && grep -q ' remote' <<<"$procs" &&
    [ "$n" -gt 20 ] && cmp -s "$scratch/h6_local.sums" "$scratch/r1.sums" &&
    [ "$omp_images" = 4 ] && grep -qE '^//openmp:saxpy_test +PASSED' "$scratch/r1.log"; then
    ok "remote execution with the SDKs hidden from the worker: examples built and tested in $((t1 - t0)) s (${procs#INFO: }); all $n HIP and CUDA outputs equal the local build's; the OpenMP GPU example's 4 images linked and its test passed there"
  else
    bad "remote execution (exit $st; $procs; OpenMP saxpy images: $omp_images of 4): $(grep -m5 -E 'ERROR|FAILED|error:' "$scratch/r1.log" | tr '\n' ' ') $(diff "$scratch/h6_local.sums" "$scratch/r1.sums" | head -4 | tr '\n' ' ')"
  fi

  # R2: the same kind of compile through an undeclared clang.
  mkdir -p "$user/undeclared"
  cp "$user/hip/scale.hip" "$user/undeclared/"
  cat >"$user/undeclared/BUILD.bazel" <<EOF
load("@rules_offload//rules:defs.bzl", "offload_bundle", "offload_clang_toolchain")

offload_clang_toolchain(
    name = "by_path",
    path = "$(readlink -f "$(command -v clang-22)")",
    rocm = "@offload_rocm//:rocm",
)

toolchain(
    name = "toolchain",
    toolchain = ":by_path",
    toolchain_type = "@rules_offload//rules:clang_toolchain_type",
)

offload_bundle(
    name = "scale",
    srcs = ["scale.hip"],
    kind = "hip",
    targets = ["gfx906"],
)
EOF
  undeclared=(--extra_toolchains=//undeclared:toolchain //undeclared:scale)
  # Locally in H4's output base: one that never built it remotely, so the
  # remote build below cannot find it in its local action cache.
  if ! user_bz build "${bazel_flags[@]}" "${undeclared[@]}" >"$scratch/r2_local.log" 2>&1; then
    bad "a toolchain with clang by path did not build locally: $(grep -m3 -E 'ERROR|error:' "$scratch/r2_local.log")"
  elif remote_bz build "${remote_flags[@]}" --noremote_accept_cached "${undeclared[@]}" >"$scratch/r2.log" 2>&1; then
    bad "a compile through an undeclared clang succeeded on the worker without the SDKs"
  elif grep -q 'Cannot run program ".*/clang".*No such file or directory' "$scratch/r2.log"; then
    ok "a toolchain naming clang by path builds locally and fails remotely ($(grep -m1 -oE 'Cannot run program "[^"]*"' "$scratch/r2.log"))"
  else
    bad "the undeclared compile failed remotely for another reason: $(grep -m3 -E 'ERROR|error' "$scratch/r2.log")"
  fi
  rm -rf "$user/undeclared"

  # R3: this workspace's integration tests, in an output base of their own.
  tests_bz() { (cd "$here" && bazel --output_base="$scratch/ob_remote_tests" "$@"); }
  tests_bz test "${bazel_flags[@]}" --spawn_strategy=remote --remote_executor="$addr" --remote_timeout=600 \
    //integration:all >"$scratch/r3.log" 2>&1
  st=$?
  procs=$(processes "$scratch/r3.log")
  others=$(ran_locally "$procs")
  n_tests=$(grep -cE '^//integration:[^ ]+ +(\(cached\) )?PASSED' "$scratch/r3.log")
  if [ $st -eq 0 ] && [ -z "$others" ] && [ "$n_tests" -gt 10 ]; then
    ok "remote execution: the $n_tests integration tests pass on the worker without the SDKs (${procs#INFO: })"
  else
    bad "integration tests on the remote worker (exit $st; $procs): $(grep -m5 -E '^FAIL|ERROR|error:' "$scratch/r3.log" | tr '\n' ' ')"
  fi
  tests_bz shutdown >/dev/null 2>&1
  remote_bz shutdown >/dev/null 2>&1
  user_bz shutdown >/dev/null 2>&1
  "$root/tests/remote/worker.sh" down "$worker_dir"
else
  bad "remote worker: $(tail -5 "$scratch/worker_up.log")"
fi
