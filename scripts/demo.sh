#!/usr/bin/env bash
# The main job: build the example device code for several GPU targets with
# clang 22, using our `offload` binary as clang's bundler, and show what was
# built. When the Bazel workspace is available it builds the examples with
# Bazel instead (tests/bazel/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x tests/bazel/demo.sh ] && command -v bazel >/dev/null 2>&1; then
  exec tests/bazel/demo.sh
fi
out=out/demo
rm -rf "$out" && mkdir -p "$out"
cat > "$out/k.hip" <<'SRC'
#define __global__ __attribute__((global))
extern "C" __global__ void scale(float *x, float a) { x[0] *= a; }
SRC
echo "== HIP object for gfx906, gfx90a:xnack+ and gfx1100, bundled by bin/clang-offload-bundler"
(cd "$out" && clang++-22 -B ../../bin -cuid=demo -x hip --offload-arch=gfx906 \
  --offload-arch=gfx90a:xnack+ --offload-arch=gfx1100 -nogpuinc -nogpulib -c k.hip -o k.o)
echo "== HIP fat binary, device-only"
(cd "$out" && clang++-22 -B ../../bin -cuid=demo -x hip --offload-arch=gfx906 \
  --offload-arch=gfx90a:xnack+ --offload-arch=gfx1100 -nogpuinc -nogpulib \
  --cuda-device-only -c k.hip -o k.hipfb)
echo "== entries of $out/k.hipfb"
bin/offload bundler -type=o -list -input="$out/k.hipfb"
if bin/offload inspect --help >/dev/null 2>&1; then
  bin/offload inspect "$out/k.o" "$out/k.hipfb"
fi
ls -l "$out"
