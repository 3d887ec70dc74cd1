#!/usr/bin/env bash
# The second test leg: today's stack, Bazel 7.7.1 in bzlmod mode, offline,
# in a Debian sid chroot (scripts/sid.sh) with clang-23, CUDA 12.4 and
# ROCm 6.4 (tests/bzlmod/README.md has the details).
#
#   tests/bzlmod/run.sh          # on the host (root): makes or reuses the
#                                # chroot, then runs itself inside it
#   KEEP=1 tests/bzlmod/run.sh   # keep the scratch workspace and output bases
#   CHECKS=remote tests/bzlmod/run.sh  # checks 1 and 6 alone
#
# A fresh workspace: a copy of examples/ and tests/gpu/programs whose
# MODULE.bazel is README.md's block verbatim. What only an offline test
# needs (rules_offload from this checkout, stand-ins for the modules Bazel's
# own bazel_tools wants from the registry) is in the test's .bazelrc alone.
# Checks:
#   1. README.md's MODULE.bazel block is there (and is the workspace's);
#   2. bazel test //...: every example (HIP, CUDA, OpenMP, the SDK-library
#      programs) and every registration test;
#   3. the GPU programs of make gpu-check, -c opt, cudart static, each run
#      here to the CUDA runtime's "no device" error;
#   4. determinism: the examples built in a fresh output base (uploading to
#      an nginx WebDAV cache) are byte-identical to the first build's;
#   5. remote cache: a third, fresh output base takes every action from the
#      cache;
#   after 3: 3a, an sm_90a program's fat binary equals clang-23's (sm90a.sh);
#   3b, OpenMP on GPUs with LLVM 21 (openmp.sh); 3c, -c opt device code
#   equals clang++-23's own -O2 build (opt.sh);
#   6. remote execution on Bazel 7.7.1's worker (tests/remote/worker.sh) with
#      LLVM, CUDA and ROCm hidden from it: the HIP and CUDA examples build
#      and their tests pass there, every non-internal action remote, and
#      their offload outputs equal check 2's;
#   7. (before 6) the tool's cross-checks with LLVM 23's own tools as the
#      oracle (llvm23_oracle.sh).
# Prints "N passed, N failed" and exits non-zero when anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ -z "${SID:-}" ]; then
  # On the host: the chroot first (a cache, made from nothing when missing).
  t0=$(date +%s)
  if ! "$root/scripts/sid.sh" setup; then
    echo "tests/bzlmod: the sid chroot could not be made (scripts/sid.sh setup)"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "tests/bzlmod: sid chroot ready after $(($(date +%s) - t0))s"
  # The worker's hiding mounts stay in its namespace only when the mount
  # holding the chroot is private (a chroot's "/" cannot be made so).
  WORKER_CHROOT_PROPAGATION=$(findmnt -no PROPAGATION -T "${SID_ROOT:-/srv/sid}" 2>/dev/null)
  export WORKER_CHROOT_PROPAGATION
  SID_PASS="ONLY CHECKS WORKER_CHROOT_PROPAGATION ${SID_PASS:-}" exec "$root/scripts/sid.sh" run -- tests/bzlmod/run.sh "$@"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/rules_offload_bzlmod.XXXXXX")
ws=$scratch/ws
bz() { (cd "$ws" && bazel --output_base="$scratch/ob_main" "$@"); }
nginx_conf=""
main_bin=""
# ok, bad and the summary line.
source "$root/tests/lib/tally.sh"

# The summary line, and the exit status: non-zero when anything failed.
finish() {
  tally_end tests/bzlmod
  exit
}

cleanup() {
  "$root/tests/remote/worker.sh" down "$scratch/worker" 2>/dev/null
  nginx_cache_down
  for ob in "$scratch"/ob_*; do
    [ -d "$ob" ] && [ -d "$ws" ] && (cd "$ws" && bazel --output_base="$ob" shutdown 2>/dev/null)
  done
  if [ -z "${KEEP:-}" ]; then
    chmod -R u+w "$scratch" 2>/dev/null
    rm -rf "$scratch"
  else
    echo "kept $scratch"
  fi
}
trap cleanup EXIT
# nginx as a cache, and reading Bazel's process summaries.
source "$root/tests/lib/remote.sh"

start=$(date +%s)
missing=()
for tool in bazel go nginx clang-23 clang-21 ptxas; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -e /usr/include/hip/hip_runtime.h ] || missing+=("libamdhip64-dev")
[ -e /usr/lib/llvm-23/lib/libomptarget.so ] || missing+=("libomp-23-dev")
[ -e /usr/lib/llvm-21/lib/nvptx64-nvidia-cuda/libompdevice.a ] || missing+=("liboffload-21-dev (unpacked)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "tests/bzlmod: missing ${missing[*]} (scripts/sid.sh setup installs them)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
echo "tests/bzlmod: $(bazel --version 2>/dev/null), $(clang-23 --version | head -1), CUDA $(ptxas --version | grep -oE 'release [0-9.]+'), HIP $(sed -n 's/^HIP_VERSION_M[AI][JN]OR=//p' /usr/share/hip/version 2>/dev/null | paste -sd.)"

# The workspace a new user would have: the examples and the GPU programs,
# and README.md's MODULE.bazel block, verbatim.
mkdir -p "$ws"
cp -r "$root/examples/." "$ws/"
rm -rf "$ws"/bazel-* "$ws/WORKSPACE" "$ws/MODULE.bazel" "$ws/.bazelrc"
cp -r "$root/tests/gpu/programs" "$ws/gpu"
rm -f "$ws/gpu/WORKSPACE"
awk '/<!-- module:begin -->/{on=1; next} /<!-- module:end -->/{on=0} on && !/^```/' "$root/README.md" >"$ws/MODULE.bazel"
if grep -q '^bazel_dep(name = "rules_offload"' "$ws/MODULE.bazel"; then
  ok "README.md's MODULE.bazel block ($(grep -c . "$ws/MODULE.bazel") lines) is the workspace's MODULE.bazel"
else
  bad "README.md has no MODULE.bazel block with bazel_dep(name = \"rules_offload\") between <!-- module:begin --> and <!-- module:end -->"
fi
# What the chroot differs in from the machine the examples name: no LLVM 16
# there. Its LLVM 23 ships no OpenMP device runtime for GPUs (libomp-23-dev
# and liboffload-23-dev have libomp and libomptarget, no libompdevice), LLVM
# 21's does (liboffload-21-dev: lib/<triple>/libompdevice.a, LLVM 20's
# layout; scripts/sid.sh unpacks it): the OpenMP example's clang16 toolchain
# is an LLVM 21 one (@offload_llvm21, a second offload.llvm tag, as
# examples/MODULE.bazel adds @offload_llvm16), its GPU targets and the two
# OpenMP GPU programs are built, and its tests load LLVM 21's runtime. The
# GPU programs are a package of the workspace, not a repository of their own.
cat >>"$ws/MODULE.bazel" <<'END'

# The examples' second LLVM (tests/bzlmod: LLVM 21 where examples/MODULE.bazel names 16).
offload.llvm(
    name = "offload_llvm21",
    version = "21",
)
use_repo(offload, "offload_llvm21")
END
sed -e 's|@offload_llvm16//:llvm|@offload_llvm21//:llvm|' -e 's|/usr/lib/llvm-16/lib|/usr/lib/llvm-21/lib|' \
  "$root/examples/openmp/BUILD.bazel" >"$ws/openmp/BUILD.bazel"
cp "$root/tests/gpu/programs/BUILD.bazel" "$ws/gpu/BUILD.bazel"
sed -i 's|@rules_offload_examples//openmp:clang16|//openmp:clang16|' "$ws/gpu/defs.bzl"

# Offline only: what a user with network access gets from the Bazel
# Central Registry. rules_offload from this checkout; bazel_tools (Bazel
# 7.7.1's own module) asks the registry for protobuf, zlib, buildozer and
# apple_support, which Debian's /etc/bazel/bazelrc does not override:
# empty stand-ins (no target of theirs is built). Debian's bazelrc already
# overrides platforms, rules_cc, bazel_skylib and the other rules from
# /usr/share/bazel.
standins=$scratch/standins
for m in protobuf zlib buildozer apple_support; do
  mkdir -p "$standins/$m"
  echo "module(name = \"$m\")" >"$standins/$m/MODULE.bazel"
  : >"$standins/$m/BUILD.bazel"
done
{
  echo "# Offline only (tests/bzlmod): modules from this checkout and stand-ins."
  echo "common --override_module=rules_offload=$root"
  for m in protobuf zlib buildozer apple_support; do
    echo "common --override_module=$m=$standins/$m"
  done
  echo "common --lockfile_mode=off"
  echo "# Bazel 7's WORKSPACE suffix would fetch rules_java's WORKSPACE-mode dependencies."
  echo "common --noenable_workspace"
  echo "# The workspace's own settings."
  echo "# Debian's /etc/bazel/bazelrc sets --sandbox_debug, which keeps every action's sandbox (a"
  echo "# symlink forest of the SDK files it reads): gigabytes of links to delete afterwards."
  echo "build --nosandbox_debug"
  echo "build --incompatible_strict_action_env"
  echo "# The C++ toolchain: LLVM 23's clang (the OpenMP halves are the openmp_library toolchain's)."
  echo "build --repo_env=CC=/usr/lib/llvm-23/bin/clang"
  echo "build --jobs=2"
  echo "test --test_output=errors"
} >"$ws/.bazelrc"

# CHECKS=remote: check 6 alone (after check 1), without check 2's outputs
# to compare with.
if [ "${CHECKS:-}" = remote ]; then
  source "$here/remote.sh"
  finish
fi

# 2. Every example and registration test.
log="$scratch/test.log"
t1=$(date +%s)
bz test --keep_going ${ONLY:-//...} 2>&1 | tee "$log" | grep -E '^(//|@).* (PASSED|FAILED|NO STATUS|TIMEOUT)|^FAIL:|^ERROR:|Executed'
status=${PIPESTATUS[0]}
n_pass=$(grep -cE '^(//|@)[^ ]+ +(\(cached\) )?PASSED' "$log")
n_fail=$(grep -cE '^(//|@)[^ ]+ +(\(cached\) )?(FAILED|NO STATUS|TIMEOUT|INCOMPLETE)' "$log")
passed=$((passed + n_pass))
failed=$((failed + n_fail))
if [ "$status" -ne 0 ] && [ "$n_fail" -eq 0 ]; then
  bad "bazel test exited $status (see the ERROR lines above)"
elif [ "$n_fail" -gt 0 ]; then
  failures+=("$n_fail Bazel tests")
fi
echo "bazel test //...: $n_pass passed, $n_fail failed ($(($(date +%s) - t1))s; $(grep -oE 'INFO: [0-9]+ processes' "$log" | tail -1))"
main_bin=$(bz info bazel-bin 2>/dev/null)
if [ -n "${ONLY:-}" ]; then # (developing: ONLY=targets runs check 2 alone on them)
  echo "$passed passed, $failed failed"
  exit 0
fi

# 3. The GPU programs of make gpu-check, as users ship them (-c opt).
programs=(//cuda:vector_add_main //cuda:saxpy_main //gpu:ptx_jit //gpu:cub_block_reduce //gpu:curand_device
  //gpu:thrust_sort_reduce)
t1=$(date +%s)
if bz build -c opt "${programs[@]}" >"$scratch/gpu.log" 2>&1; then
  opt_bin=$(bz info -c opt bazel-bin 2>/dev/null)
  ok "the ${#programs[@]} GPU programs of make gpu-check build -c opt ($(($(date +%s) - t1))s)"
  # The CUDA ones link cudart statically: no libcudart.so needed, and with
  # no GPU (no driver) each must reach the runtime's "no device" error.
  for p in "${programs[@]}"; do
    case "$p" in *openmp*) continue ;; esac
    f=$opt_bin/${p#//}
    f=${f/://}
    out=$("$f" 2>&1)
    st=$?
    if [ $st -eq 2 ] && grep -q "no device" <<<"$out" && ! readelf -d "$f" | grep -q 'libcudart\.so'; then
      ok "$p (cudart static) runs to: $(head -1 <<<"$out")"
    else
      bad "$p exited $st: $out"
    fi
  done
else
  bad "the GPU programs -c opt: $(grep -m5 -E 'ERROR|error' "$scratch/gpu.log")"
fi

# 3a. An sm_90a program: its fat binary equals clang-23's (tests/bzlmod/sm90a.sh).
source "$here/sm90a.sh"
# 3b. OpenMP on GPUs with LLVM 21 (its device runtime in LLVM 20's layout).
source "$here/openmp.sh"
# 3c. -c opt device code equals clang++-23's own -O2 build (tests/bzlmod/opt.sh).
t_opt=$(date +%s)
source "$here/opt.sh"
echo "check 3c (-c opt against clang++-23) took $(($(date +%s) - t_opt))s"

# 4 and 5: nginx as a Bazel HTTP cache (WebDAV PUT) on 127.0.0.1.
examples=(//hip/... //cuda/... //openmp/...)
if nginx_cache_up; then
  cache=(--remote_cache="http://127.0.0.1:$port" --remote_upload_local_results)
  # 4. A fresh output base; the cache starts empty, so every action runs here.
  ob1="$scratch/ob_1"
  t1=$(date +%s)
  if (cd "$ws" && bazel --output_base="$ob1" build "${cache[@]}" "${examples[@]}") >"$scratch/build1.log" 2>&1; then
    bin1=$(cd "$ws" && bazel --output_base="$ob1" info bazel-bin 2>/dev/null)
    (cd "$ws" && bazel --output_base="$ob1" shutdown)
    diffs=""
    count=0
    reordered=0
    shuffled=0
    # Every file the fresh build wrote, against the first build's copy
    # (runfiles manifests list absolute paths by design); the OpenMP
    # example's -O0 NVPTX cubins by their sections and symbols, and not what embeds
    # them (openmp.sh: LLVM's NVPTX asm printer orders some globals by
    # pointer hash).
    while IFS= read -r f; do
      count=$((count + 1))
      if [[ $f =~ $omp_reordered ]]; then
        reordered=$((reordered + 1))
        cmp -s "$main_bin/$f" "$bin1/$f" && continue
        shuffled=$((shuffled + 1))
        [ "$(omp_cubin_shape "$main_bin/$f")" = "$(omp_cubin_shape "$bin1/$f")" ] || diffs+=" $f"
      else
        cmp -s "$main_bin/$f" "$bin1/$f" || diffs+=" $f"
      fi
    done < <(cd "$bin1" && find hip cuda openmp -type f ! -path '*.runfiles*' ! -name '*runfiles_manifest' |
      grep -vE "$omp_embedders" | sort)
    if [ "$count" -gt 0 ] && [ "$reordered" -gt 0 ] && [ -z "$diffs" ]; then
      ok "determinism: $count example outputs the same across two output bases ($(($(date +%s) - t1))s): byte-identical but for $shuffled of the OpenMP example's $reordered -O0 NVPTX cubins, which have the same sections and symbols laid out in another order; what embeds those not compared (openmp.sh)"
    else
      bad "determinism: $count files compared, differing:$diffs"
    fi
    uploads=$(find "$scratch/cache" -type f | wc -l)

    # 5. Another fresh output base: everything must come from the cache.
    ob2="$scratch/ob_2"
    if (cd "$ws" && bazel --output_base="$ob2" build "${cache[@]}" \
      --execution_log_json_file="$scratch/exec2.json" "${examples[@]}") >"$scratch/build2.log" 2>&1; then
      summary=$(grep -E 'INFO: [0-9]+ processes' "$scratch/build2.log" | tail -1)
      hits=$(grep -oE '[0-9]+ remote cache hit' <<<"$summary" | grep -oE '^[0-9]+')
      offload_spawns=$(grep -cE '"mnemonic": ?"Offload' "$scratch/exec2.json")
      local_runs=$(grep -oE '[0-9]+ (processwrapper-sandbox|linux-sandbox|local|sandbox|worker)' <<<"$summary" || true)
      bin2=$(cd "$ws" && bazel --output_base="$ob2" info bazel-bin 2>/dev/null)
      same=yes
      cmp -s "$main_bin/hip/scale.hipfb" "$bin2/hip/scale.hipfb" || same=no
      (cd "$ws" && bazel --output_base="$ob2" shutdown)
      if [ -n "$hits" ] && [ "$hits" -gt 0 ] && [ -z "$local_runs" ] && [ "$offload_spawns" -gt 0 ] && [ $same = yes ]; then
        ok "remote cache: $uploads entries uploaded; a clean build took all $hits actions ($offload_spawns Offload*) from the cache: $summary"
      else
        bad "remote cache: summary '$summary' ($offload_spawns Offload* spawns, locally run: ${local_runs:-none}, same bytes: $same)"
      fi
    else
      bad "remote cache: build in a fresh output base failed: $(tail -5 "$scratch/build2.log")"
    fi
  else
    bad "determinism: build in a fresh output base failed: $(tail -5 "$scratch/build1.log")"
  fi
fi

# 7. The tool against LLVM 23's own tools (tests/bzlmod/llvm23_oracle.sh).
source "$here/llvm23_oracle.sh"

# 6. Remote execution, the SDKs hidden from the worker.
source "$here/remote.sh"
finish
