#!/usr/bin/env bash
# Builds the examples with Bazel (the Bazel 4.2.3 workspace in tests/bazel,
# with bin/offload handed to the rules as a prebuilt tool), runs the OpenMP
# example's test, and shows what was built with `offload inspect`.
# Needs what scripts/install-deps.sh installs (Bazel, LLVM 22 and 16, ROCm, CUDA) and Go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
offload="$root/bin/offload"

(cd "$root" && go build -trimpath -o bin/offload ./tool/offload)
cd "$here"
# The output base lives in this checkout (out/ is ignored), so a new clone
# never reuses actions cached from another one: clang-16 puts the source
# file's inode into OpenMP kernel names.
bazel() { command bazel --output_base="$root/out/bazel-demo" "$@"; }
trap 'bazel shutdown 2>/dev/null' EXIT

echo "== bazel build @rules_offload_examples//... (one compile action per source and target)"
bazel build --jobs=2 @rules_offload_examples//... 2>&1 | grep -E '^INFO: (Analyzed|[0-9]+ processes)|^ERROR|^FAILED' | sort -u || true
bin=$(bazel info bazel-bin 2>/dev/null)/external/rules_offload_examples

echo
echo "== actions per mnemonic"
bazel aquery --jobs=2 \
  'mnemonic("Offload.*", set(@rules_offload_examples//hip:all @rules_offload_examples//cuda:all @rules_offload_examples//openmp:all))' \
  2>/dev/null | sed -n 's/^  Mnemonic: //p' | sort | uniq -c

echo
echo "== bazel test @rules_offload_examples//openmp:vecadd_test (the target region runs on the host-CPU offload device)"
bazel test --jobs=2 --test_output=all @rules_offload_examples//openmp:vecadd_test 2>&1 |
  grep -E '^offload devices|^@.*(PASSED|FAILED)' || true

cd "$bin"
for f in hip/scale.hipfb hip/scale_compressed.hipfb hip/axpy.hipfb hip/scale_ir.ll hip/scale_package.offloadbin \
  hip/libkernels.a cuda/saxpy_ptx.offloadbin cuda/saxpy_compute90.offloadbin cuda/saxpy_cubin.offloadbin \
  openmp/_offload/vecadd_device_link/vecadd_device_link.offloadbin; do
  echo
  echo "== $f ($(stat -L -c %s "$f") bytes)"
  "$offload" inspect "$f"
done
