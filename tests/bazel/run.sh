#!/usr/bin/env bash
# Bazel 4.2.3 integration tests of rules_offload, offline.
#
#   tests/bazel/run.sh          # everything
#   KEEP=1 tests/bazel/run.sh   # keep the scratch output bases and logs
#
# Installs nothing: needs bazel-bootstrap, bazel-skylib, nginx, clang-22,
# llvm-22 (the oracle tools), clang-16 and libomp-16-dev, clang-19, lld-19
# and libomp-19-dev's files (scripts/install-deps.sh), and Go.
# Steps (tests/bazel/README.md has the details):
#   1. go build the offload tool into bin/offload (handed to the rules
#      through offload_toolchain; no rules_go under Bazel 4.2);
#   2. the Starlark target-ID parser against lib/targetid's LLVM vectors
#      (go.starlark.net);
#   3. bazel test: analysis tests, integration tests (outputs checked with
#      clang-offload-bundler-22 and friends) and every example, including the
#      OpenMP cc_tests whose target regions run on the host-CPU device of
#      LLVM 16's and LLVM 19's libomptarget (each Bazel test counts);
#   4. aquery: every Offload* action supports path mapping and passes no
#      absolute path;
#   5. incremental (execution log): adding a target runs that target's
#      compiles and what follows them, editing a source its compiles (one
#      per target) and what follows them, a no-op rebuild nothing;
#   5c. the GPU programs of tests/gpu (gpu.sh): built -c opt, packed by
#      tests/gpu/build.sh and run without a GPU, each to the CUDA
#      runtime's "no device" error (make gpu-check runs them on a GPU);
#   5d. clangd (clangd.sh): offload_compile_commands writes
#      compile_commands.json; clangd-22 --check opens the examples' .hip and
#      .cu and a source with generated and prefixed headers with no error;
#   5e. targets "native" (native.sh): fake amdgpu-arch/nvptx-arch print a
#      chosen list; HIP and CUDA targets compile for exactly their GPUs,
#      and none found fails analysis with the tools' reason;
#   6. hermetic toolchains (hermetic.sh): the compiler's and the SDKs' files
#      are inputs, one changed byte of an SDK re-runs its compiles, clang-16
#      and clang-22 give different keys, a fresh workspace that follows the
#      README builds the examples, ROCm from a sha256-checked archive;
#      LLVM and CUDA from archives only (sdk_archives.sh: a tarball of
#      LLVM, NVIDIA's per-component form for CUDA) give the same outputs;
#      CUDA laid out as 13.0 installs it (include/cccl, targets/x86_64-linux)
#      and as CUDA 12's pip wheels, over 11.8's files (sdk_layouts.sh);
#   6b. remote execution (remote.sh): the examples build and test on
#      Bazel's remote worker with the SDKs hidden from it, outputs equal
#      the local build's; an undeclared SDK file fails there;
#   7. determinism: the examples built in a fresh output base (uploading to
#      an nginx WebDAV cache) are byte-identical to the first build's;
#   8. remote cache: a third, fresh output base takes every action from the
#      cache: Bazel reports remote cache hits and runs nothing locally.
# Prints "N passed, N failed" and exits non-zero when anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rules_offload_bazel.XXXXXX")
# Every run starts from a fresh output base: a kept one could hold actions
# cached from an earlier checkout, and clang-16 puts the source file's inode
# into OpenMP kernel names, so cached host and device halves could disagree.
bz() { bazel --output_base="$scratch/ob_main" "$@"; }
nginx_conf=""
# ok, bad and the summary line.
source "$root/tests/lib/tally.sh"

cleanup() {
  "$root/tests/remote/worker.sh" down "$scratch/worker" 2>/dev/null
  nginx_cache_down
  for ob in "$scratch"/ob_*; do
    [ -d "$ob" ] && (cd "$here" && bazel --output_base="$ob" shutdown 2>/dev/null)
  done
  (cd "$here" && bazel shutdown 2>/dev/null)
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

missing=()
for tool in bazel go nginx clang-22 clang++-22 clangd-22 clang-16 clang-19 clang-offload-bundler-22 llvm-objdump-22 \
  llvm-offload-binary-22 llvm-readelf-22 llvm-ar-22 ptxas; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -d /usr/share/bazel/tools/skylib ] || missing+=("bazel-skylib (/usr/share/bazel/tools/skylib)")
[ -e /usr/lib/llvm-16/lib/libomptarget.so ] || missing+=("libomp-16-dev (libomptarget)")
[ -e /usr/lib/llvm-16/bin/lld ] || missing+=("lld-16")
[ -e /usr/lib/llvm-19/bin/lld ] || missing+=("lld-19")
[ -e /usr/lib/llvm-19/lib/libomptarget.devicertl.a ] || missing+=("libomp-19-dev's files in /usr/lib/llvm-19")
[ -e /usr/include/hip/hip_runtime.h ] || missing+=("libamdhip64-dev (HIP headers)")
[ -e /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc ] || missing+=("rocm-device-libs")
[ -d /usr/src/bazel-bootstrap/src/tools/remote ] || missing+=("bazel-bootstrap-source (the remote worker)")
command -v javac >/dev/null 2>&1 || missing+=("javac (openjdk-17-jdk-headless)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "tests/bazel: missing ${missing[*]}" >&2
  echo "install: scripts/install-deps.sh (as root)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

start=$(date +%s)
bazel_flags=(--jobs=2)

# 1. The tool.
if (cd "$root" && go build -trimpath -o bin/offload ./tool/offload); then
  ok "go build bin/offload"
else
  bad "go build bin/offload"
  echo "$passed passed, $failed failed"
  exit 1
fi

# 2. The Starlark parser.
if (cd "$root" && go test -count=1 ./tests/starlark/); then
  ok "Starlark target IDs agree with lib/targetid's LLVM vectors (go test ./tests/starlark)"
else
  bad "go test ./tests/starlark"
fi

cd "$here" || exit 1

# 3. Analysis tests, integration tests and the examples.
log="$scratch/test.log"
# cuda_libs_static_test is manual (out of :all): its link reads 2.2 GB of
# CUDA's static archives, more than remote.sh's worker should be sent.
bz test "${bazel_flags[@]}" //analysis:all //integration:all //integration/openmp:all //integration:cuda_libs_static_test \
  @rules_offload_examples//... 2>&1 | tee "$log" |
  grep -E '^(//|@).* (PASSED|FAILED|NO STATUS|TIMEOUT)|^FAIL:|^ERROR:|Executed'
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
echo "bazel test: $n_pass passed, $n_fail failed"

# 4. Hermetic command lines, checked in aquery (Bazel 4.2's Starlark Action
# has no execution_info, so the analysis tests cannot see it).
aq="$scratch/aquery.txt"
# (Bazel 4.2's aquery cannot expand @repo//... inside an expression.)
examples='set(@rules_offload_examples//hip:all @rules_offload_examples//cuda:all @rules_offload_examples//openmp:all)'
if bz aquery "${bazel_flags[@]}" "mnemonic(\"Offload.*\", $examples)" >"$aq" 2>"$scratch/aquery.err"; then
  actions=$(grep -c '^  Mnemonic: Offload' "$aq")
  mapped=$(awk 'BEGIN{RS=""} /Mnemonic: Offload/ && /ExecutionInfo: \{supports-path-mapping: 1\}/{n++} END{print n+0}' "$aq")
  # Arguments only; the first line of each command is the executable.
  awk '/Command Line: \(exec/{cmd=1; next} cmd && /^    /{print} /^  [A-Z]/{cmd=0}' "$aq" >"$scratch/args.txt"
  nargs=$(wc -l <"$scratch/args.txt")
  absolute=$(grep -E "(^|[ '=])/" "$scratch/args.txt" || true)
  if [ "$actions" -gt 0 ] && [ "$nargs" -gt "$actions" ] && [ "$mapped" -eq "$actions" ] && [ -z "$absolute" ]; then
    ok "aquery: $actions Offload* actions, all supports-path-mapping; none of their $nargs arguments is an absolute path"
  else
    bad "aquery: $actions actions, $mapped with supports-path-mapping; absolute arguments: ${absolute:-none}"
  fi
else
  bad "bazel aquery failed: $(tail -3 "$scratch/aquery.err")"
fi

main_bin=$(bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)/external/rules_offload_examples

# 5. Incremental builds, read from Bazel's execution log (every process it
# ran, whatever its mnemonic), over a scratch copy of tests/bazel/incremental
# that stands in for @offload_incremental (the copy is edited, never the
# checkout). Each rebuild must run exactly the listed actions:
#   adding gfx908: its compile per source and rule, the fat binaries and
#     the library's host compiles (which list every target);
#   nothing changed: nothing;
#   a kernel added to offset.hip (the library's alone): its three compiles,
#     its fat binary and its host compile;
#   a kernel added to scale.hip (both rules'): its compiles in each rule,
#     both fat binaries that hold it and its host compile.
inc_src="$scratch/incremental"
cp -r "$here/incremental" "$inc_src" && chmod -R u+w "$inc_src"
flag=--@rules_offload//rules:targets
inc=(//integration:incremental //integration:incremental_library)
inc_bz() { # LOG_NAME TARGETS [flags]: builds inc into $scratch/LOG_NAME.{log,json}
  local name=$1 targets=$2
  shift 2
  bz build "${bazel_flags[@]}" --override_repository=offload_incremental="$inc_src" "$flag=$targets" \
    --execution_log_json_file="$scratch/$name.json" "$@" "${inc[@]}" >"$scratch/$name.log" 2>&1
}
# What a build ran: "Mnemonic outputs" per process, the outputs relative to
# integration's bin directory, sorted, one a line. (Bazel 4.2's JSON log
# puts each spawn's top-level fields on lines of their own, indented two
# spaces, listedOutputs before mnemonic.)
ran() {
  awk '/^  "listedOutputs": /{o=$0; sub(/^  "listedOutputs": \[/, "", o); sub(/\],?$/, "", o); gsub(/"/, "", o); gsub(/, /, " ", o)}
    /^  "mnemonic": /{m=$2; gsub(/[",]/, "", m); print m, o}' "$1" |
    sed 's#bazel-out/[^/ ]*/bin/integration/\(_offload/\)\{0,1\}##g' | sort
}
inc_check() { # NAME WHAT WANT: compares what build NAME ran with WANT
  local got
  # Bazel writes the log, empty when nothing ran; no log proves nothing.
  [ -f "$scratch/$1.json" ] || {
    bad "incremental: $2: no execution log"
    return
  }
  got=$(ran "$scratch/$1.json")
  if [ "$got" = "$3" ]; then
    ok "incremental: $2 ran exactly $(grep -c . <<<"$got") processes: $(paste -sd, - <<<"${got:-nothing}")"
  else
    bad "incremental: $2 ran:"$'\n'"${got:-nothing}"$'\n'"want:"$'\n'"${3:-nothing}"
  fi
}
three=gfx906,gfx90a:xnack+,gfx908
if inc_bz inc1 gfx906,gfx90a:xnack+ && inc_bz inc2 "$three"; then
  inc_check inc2 "adding gfx908" "$(
    cat <<'EOF2'
OffloadBundle incremental.hipfb
OffloadBundle incremental_library/offset.hipfb
OffloadBundle incremental_library/scale.hipfb
OffloadCompile incremental/gfx908/scale.o
OffloadCompile incremental_library/gfx908/offset.o
OffloadCompile incremental_library/gfx908/scale.o
OffloadHipFatbinObject incremental_library/offset.hipfb.o
OffloadHipFatbinObject incremental_library/scale.hipfb.o
EOF2
  )"
  # (Bazel's JSON writes '=' as \u003d.) The compiles name gfx908 alone; the
  # host compiles, which name no target and embed no device code, do not rerun.
  archs=$(grep -oE '"--offload-arch(=|\\u003d)[^"]*"' "$scratch/inc2.json" | sed 's/\\u003d/=/' | sort | uniq -c |
    awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
  want_archs='"--offload-arch=gfx908" x3'
  [ "$archs" = "$want_archs" ] || bad "incremental: adding gfx908 passed $archs (want $want_archs)"
else
  bad "incremental: build failed: $(tail -3 "$scratch/inc2.log" "$scratch/inc1.log")"
fi
if inc_bz inc3 "$three"; then
  inc_check inc3 "a rebuild with nothing changed" ""
else
  bad "incremental: no-op rebuild failed: $(tail -3 "$scratch/inc3.log")"
fi
# A new kernel changes the device code, so what follows the compiles reruns.
echo '__global__ void EditedOffset(int *p) { *p = 1; }' >>"$inc_src/offset.hip"
if inc_bz inc4 "$three"; then
  inc_check inc4 "editing offset.hip" "$(
    cat <<'EOF2'
OffloadBundle incremental_library/offset.hipfb
OffloadCompile incremental_library/gfx906/offset.o
OffloadCompile incremental_library/gfx908/offset.o
OffloadCompile incremental_library/gfx90a_xnack+/offset.o
OffloadHipFatbinObject incremental_library/offset.hipfb.o
OffloadHostCompile incremental_library/offset.o
EOF2
  )"
else
  bad "incremental: rebuild after editing offset.hip failed: $(tail -3 "$scratch/inc4.log")"
fi
echo 'extern "C" __global__ void edited_scale(int *p) { *p = 2; }' >>"$inc_src/scale.hip"
if inc_bz inc5 "$three"; then
  inc_check inc5 "editing scale.hip" "$(
    cat <<'EOF2'
OffloadBundle incremental.hipfb
OffloadBundle incremental_library/scale.hipfb
OffloadCompile incremental/gfx906/scale.o
OffloadCompile incremental/gfx908/scale.o
OffloadCompile incremental/gfx90a_xnack+/scale.o
OffloadCompile incremental_library/gfx906/scale.o
OffloadCompile incremental_library/gfx908/scale.o
OffloadCompile incremental_library/gfx90a_xnack+/scale.o
OffloadHipFatbinObject incremental_library/scale.hipfb.o
OffloadHostCompile incremental_library/scale.o
EOF2
  )"
else
  bad "incremental: rebuild after editing scale.hip failed: $(tail -3 "$scratch/inc5.log")"
fi

# 5b. -c opt: device code equals clang's single-command -O2 build.
source "$here/opt.sh"
# And clang-19's OpenMP GPU images equal clang-19 -fopenmp -O2's own
# (integration/openmp/matches_clang19.sh; manual, out of step 3's :all).
omp19=//integration/openmp:saxpy_matches_clang19_test
if bz test "${bazel_flags[@]}" -c opt "$omp19" >"$scratch/omp19.log" 2>&1; then
  ok "-c opt: $omp19: $(grep -h '^ok:' "$(bz info "${bazel_flags[@]}" -c opt bazel-testlogs 2>/dev/null)/integration/openmp/saxpy_matches_clang19_test/test.log" | cut -d: -f2 | cut -d' ' -f2 | paste -sd, -) images checked against clang-19 -O2's (sm_XX byte for byte)"
else
  bad "-c opt: $omp19 failed: $(grep -E '^(FAIL|ERROR)' "$scratch/omp19.log" | tail -3)"
fi

# 5c. The GPU programs (tests/gpu), built -c opt and dry-run without a GPU.
source "$here/gpu.sh"

# 5d. Editors: clangd-22 with offload_compile_commands' database.
source "$here/clangd.sh"

# 5e. targets "native" with fake amdgpu-arch and nvptx-arch.
source "$here/native.sh"

# 6. Hermetic toolchains: SDK files as inputs, SDK bytes in the keys,
# compilers in the keys, the README's WORKSPACE, archives with sha256.
source "$here/hermetic.sh"
source "$here/sdk_archives.sh"
source "$here/sdk_layouts.sh"

# 6b. Remote execution on Bazel's worker, the SDKs hidden from it.
source "$here/remote.sh"

# 7 and 8: nginx as a Bazel HTTP cache (WebDAV PUT) on 127.0.0.1.
if nginx_cache_up; then
  cache=(--remote_cache="http://127.0.0.1:$port" --remote_upload_local_results)
  # 7. A fresh output base; the cache starts empty, so every action runs here.
  ob1="$scratch/ob_1"
  if bazel --output_base="$ob1" build "${bazel_flags[@]}" "${cache[@]}" @rules_offload_examples//... >"$scratch/build1.log" 2>&1; then
    bin1=$(bazel --output_base="$ob1" info bazel-bin 2>/dev/null)/external/rules_offload_examples
    bazel --output_base="$ob1" shutdown
    diffs=""
    count=0
    # Every file the fresh build wrote, against the first build's copy
    # (runfiles manifests list absolute paths by design).
    while IFS= read -r f; do
      count=$((count + 1))
      cmp -s "$main_bin/$f" "$bin1/$f" || diffs+=" $f"
    done < <(cd "$bin1" && find . -type f ! -path '*.runfiles*' ! -name '*runfiles_manifest' | sort)
    if [ "$count" -gt 0 ] && [ -z "$diffs" ]; then
      ok "determinism: $count example outputs byte-identical across two output bases"
    else
      bad "determinism: $count files compared, differing:$diffs"
    fi
    uploads=$(find "$scratch/cache" -type f | wc -l)

    # 8. Another fresh output base: everything must come from the cache.
    ob2="$scratch/ob_2"
    if bazel --output_base="$ob2" build "${bazel_flags[@]}" "${cache[@]}" \
      --execution_log_json_file="$scratch/exec2.json" @rules_offload_examples//... >"$scratch/build2.log" 2>&1; then
      summary=$(grep -E 'INFO: [0-9]+ processes' "$scratch/build2.log" | tail -1)
      hits=$(grep -oE '[0-9]+ remote cache hit' <<<"$summary" | grep -oE '^[0-9]+')
      offload_spawns=$(grep -cE '"mnemonic": "Offload' "$scratch/exec2.json")
      local_runs=$(grep -oE '[0-9]+ (processwrapper-sandbox|linux-sandbox|local|sandbox|worker)' <<<"$summary" || true)
      bin2=$(bazel --output_base="$ob2" info bazel-bin 2>/dev/null)/external/rules_offload_examples
      same=yes
      cmp -s "$main_bin/hip/scale.hipfb" "$bin2/hip/scale.hipfb" || same=no
      bazel --output_base="$ob2" shutdown
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

tally_end tests/bazel
