# Hermetic-toolchain checks of run.sh (sourced; uses its ok, bad, bz,
# bazel_flags, scratch, here and root). The SDK repositories of
# //rules:repositories.bzl are proven here:
#   H1 aquery: a HIP and a CUDA compile list the compiler's and the SDKs'
#      files as inputs;
#   H2 one byte changed in a copy of ROCm re-runs the compiles that read it
#      (a header comment: they run and succeed; the device library: they
#      run and clang rejects the file);
#   H3 switching the toolchain from clang-22 to clang-16 changes the action key;
#   H4 a fresh workspace set up only as README.md says builds and tests the
#      examples offline, with the offload tool built from source by Go;
#   H5 ROCm from an archive (file:// URL, sha256) builds the same fat binary;
#      a wrong sha256 fails with Bazel's checksum error.

# H1
aq_inputs() { # TARGET ARCH: the Inputs line of that target's compile for ARCH
  bz aquery "${bazel_flags[@]}" "mnemonic(\"OffloadCompile\", $1)" 2>/dev/null |
    awk -v arch="--offload-arch=$2'" '/^action /{inputs=""} /^  Inputs: /{inputs=$0} index($0, arch){print inputs; exit}'
}
hip_in=$(aq_inputs @rules_offload_examples//hip:scale gfx906)
cuda_in=$(aq_inputs @rules_offload_examples//cuda:saxpy_cubin sm_70)
missing=""
for f in external/offload_llvm/bin/clang external/offload_llvm/bin/lld external/offload_llvm/lib/libLLVM.so.22.1 \
  external/offload_llvm/lib/clang/22/include/__clang_hip_runtime_wrapper.h \
  external/offload_rocm/include/hip/hip_runtime.h external/offload_rocm/amdgcn/bitcode/ocml.bc \
  external/offload_rocm/share/hip/version; do
  grep -qF "$f," <<<"$hip_in," || missing+=" hip:$f"
done
for f in external/offload_llvm/bin/clang external/offload_cuda/bin/ptxas external/offload_cuda/include/cuda_runtime.h \
  external/offload_cuda/nvvm/libdevice/libdevice.10.bc \
  external/offload_llvm/lib/clang/22/include/__clang_cuda_runtime_wrapper.h; do
  grep -qF "$f," <<<"$cuda_in," || missing+=" cuda:$f"
done
if [ -n "$hip_in" ] && [ -n "$cuda_in" ] && [ -z "$missing" ]; then
  ok "aquery: HIP and CUDA compiles take clang, lld, libLLVM, the resource headers, HIP headers, device libraries, CUDA headers, libdevice and ptxas as inputs"
else
  bad "aquery inputs: missing${missing:- the actions}"
fi

# H2: a copy of this machine's ROCm, found through $ROCM_PATH.
copy="$scratch/rocm_copy"
mkdir -p "$copy/include" "$copy/amdgcn" "$copy/share/hip"
cp -rL /usr/include/hip "$copy/include/" && cp -rL /usr/lib/x86_64-linux-gnu/amdgcn/bitcode "$copy/amdgcn/" &&
  cp /usr/share/hip/version "$copy/share/hip/"
sdk_bz() { bazel --output_base="$scratch/ob_sdk" "$@"; }
sdk_flags=("${bazel_flags[@]}" --repo_env=ROCM_PATH="$copy" "--@rules_offload//rules:targets=gfx906,gfx908")
compiles() { grep -c '"mnemonic": "OffloadCompile"' "$1"; }
if sdk_bz build "${sdk_flags[@]}" //integration:incremental >"$scratch/sdk1.log" 2>&1; then
  # One byte: the first "A" of hip_version.h's opening comment.
  sed -i '1s/A/a/' "$copy/include/hip/hip_version.h"
  sdk_bz build "${sdk_flags[@]}" --execution_log_json_file="$scratch/sdk2.json" //integration:incremental >"$scratch/sdk2.log" 2>&1
  st2=$?
  # clang must read the declared copy, not /usr/include/hip (Debian's).
  cp "$copy/include/hip/hip_version.h" "$scratch/hip_version.h.orig"
  echo '#error "rules_offload: read from the declared ROCm"' >>"$copy/include/hip/hip_version.h"
  sdk_bz build "${sdk_flags[@]}" //integration:incremental >"$scratch/sdk_err.log" 2>&1
  st_err=$?
  cp "$scratch/hip_version.h.orig" "$copy/include/hip/hip_version.h"
  printf '\x00' | dd of="$copy/amdgcn/bitcode/ocml.bc" bs=1 seek=100 conv=notrunc 2>/dev/null
  sdk_bz build "${sdk_flags[@]}" --keep_going --execution_log_json_file="$scratch/sdk3.json" //integration:incremental >"$scratch/sdk3.log" 2>&1
  st3=$?
  n2=$(compiles "$scratch/sdk2.json") n3=$(compiles "$scratch/sdk3.json")
  if [ $st2 -eq 0 ] && [ "$n2" -eq 2 ] && [ $st3 -ne 0 ] && [ "$n3" -ge 1 ] &&
    grep -q "external/offload_rocm/amdgcn/bitcode/ocml.bc" "$scratch/sdk3.log" &&
    [ $st_err -ne 0 ] && grep -q "read from the declared ROCm" "$scratch/sdk_err.log"; then
    ok "SDK bytes in the action keys: one byte of a ROCm header re-ran both compiles; an #error added to it stopped them (clang reads the declared headers, not /usr/include's); a corrupted ocml.bc re-ran them and clang rejected it"
  else
    bad "SDK change: header edit ran $n2 compiles (exit $st2), #error in the header: exit $st_err, ocml.bc corruption ran $n3 (exit $st3): $(grep -m2 -E 'ERROR|error' "$scratch/sdk_err.log" "$scratch/sdk3.log")"
  fi
else
  bad "build over a copy of ROCm failed: $(grep -m3 ERROR "$scratch/sdk1.log")"
fi
sdk_bz shutdown >/dev/null 2>&1

# H3
action_key() { # extra bazel flags...: the ActionKey of incremental's gfx906 compile
  bz aquery "${bazel_flags[@]}" "--@rules_offload//rules:targets=gfx906" "$@" \
    'mnemonic("OffloadCompile", //integration:incremental)' 2>/dev/null | awk '/ActionKey:/{print $2; exit}'
}
k22=$(action_key)
k16=$(action_key --extra_toolchains=//integration:clang16_toolchain)
if [ -n "$k22" ] && [ -n "$k16" ] && [ "$k22" != "$k16" ]; then
  ok "the same compile with clang-22 and clang-16 has different action keys ($k22 vs $k16)"
else
  bad "action keys for clang-22 and clang-16: '$k22' '$k16'"
fi

# H4: the README's WORKSPACE and .bazelrc blocks, around a copy of the examples;
# the build's output is quiet (no sandbox debug lines).
user="$scratch/user_ws"
mkdir -p "$user"
cp -r "$root/examples/." "$user/"
rm -rf "$user"/bazel-*
awk '/<!-- workspace:begin -->/{on=1; next} /<!-- workspace:end -->/{on=0} on && !/^```/' "$root/README.md" |
  sed "s|/path/to/rules_offload|$root|" >"$user/WORKSPACE"
# ... and its .bazelrc block, not examples/.bazelrc: a new user has only the README.
awk '/<!-- bazelrc:begin -->/{on=1; next} /<!-- bazelrc:end -->/{on=0} on && !/^```/' "$root/README.md" >"$user/.bazelrc"
user_bz() { (cd "$user" && bazel --output_base="$scratch/ob_user" "$@"); }
if grep -q rules_offload_toolchains "$user/WORKSPACE" &&
  user_bz test "${bazel_flags[@]}" //... >"$scratch/user.log" 2>&1; then
  built=$(grep -oE 'INFO: [0-9]+ processes' "$scratch/user.log" | tail -1)
  user_bin=$(user_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)
  cp "$user_bin/hip/scale.hipfb" "$scratch/scale_local.hipfb"
  ok "a fresh workspace with README.md's WORKSPACE lines builds and tests the examples offline ($built; the offload tool built by Go)"
  noise=$(grep -c 'linux-sandbox' "$scratch/user.log")
  if [ "$noise" -eq 0 ]; then
    ok "the README's workspace builds quietly: no linux-sandbox debug lines in $(wc -l <"$scratch/user.log") lines of output"
  else
    bad "the README's workspace prints $noise linux-sandbox debug lines (its .bazelrc block?)"
  fi
else
  bad "README workspace: $(grep -m5 -E 'ERROR|FAILED|error' "$scratch/user.log")"
fi

# H5: the same workspace with ROCm from an archive of the pristine copy.
cp -rL /usr/include/hip/. "$copy/include/hip/" && cp -rL /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/. "$copy/amdgcn/bitcode/"
tar -C "$scratch" -cf "$scratch/rocm.tar" --transform 's|^rocm_copy|rocm-5.2|' rocm_copy
sum=$(sha256sum "$scratch/rocm.tar" | cut -d' ' -f1)
# Puts the given WORKSPACE lines (none: removes them) before
# rules_offload_toolchains(), between markers, replacing earlier ones.
declare_sdks() {
  sed -i '/^# archive:begin/,/^# archive:end/d' "$user/WORKSPACE"
  [ $# -eq 0 ] && return
  local block
  block=$(printf '%s\n' "# archive:begin" "$@" "# archive:end")
  BLOCK="$block" awk '/^rules_offload_toolchains/ && !done { print ENVIRON["BLOCK"]; done = 1 } {print}' \
    "$user/WORKSPACE" >"$user/WORKSPACE.new" && mv "$user/WORKSPACE.new" "$user/WORKSPACE"
}
archive_ws() { # SHA256: offload_rocm from the archive
  declare_sdks 'load("@rules_offload//rules:repositories.bzl", "offload_rocm_repository")' \
    "offload_rocm_repository(name = \"offload_rocm\", urls = [\"file://$scratch/rocm.tar\"], sha256 = \"$1\", strip_prefix = \"rocm-5.2\")"
}
archive_ws "$sum"
if user_bz build "${bazel_flags[@]}" //hip:scale >"$scratch/archive.log" 2>&1; then
  obu="$scratch/ob_user"
  from=$(readlink "$obu/external/offload_rocm/amdgcn/bitcode")
  user_bin=$(user_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)
  if cmp -s "$user_bin/hip/scale.hipfb" "$scratch/scale_local.hipfb" &&
    [[ $from == "$obu/external/offload_rocm/_archive/"* ]]; then
    ok "ROCm from a file:// archive with sha256: the device libraries come from the archive; scale.hipfb is byte-identical to the local ROCm's"
  else
    bad "archive ROCm: device libraries from '$from', or scale.hipfb differs"
  fi
else
  bad "archive ROCm build failed: $(grep -m5 -E 'ERROR|error' "$scratch/archive.log")"
fi
archive_ws "$(printf '0%.0s' {1..64})"
if user_bz build "${bazel_flags[@]}" //hip:scale >"$scratch/badsum.log" 2>&1; then
  bad "a wrong sha256 for the ROCm archive was accepted"
elif grep -q "Checksum was $sum but wanted 0000" "$scratch/badsum.log"; then
  ok "a wrong sha256 fails with Bazel's checksum error"
else
  bad "wrong sha256 failed for another reason: $(grep -m3 ERROR "$scratch/badsum.log")"
fi
user_bz shutdown >/dev/null 2>&1
