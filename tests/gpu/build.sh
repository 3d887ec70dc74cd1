#!/usr/bin/env bash
# Builds every GPU program of tests/gpu and the CUDA examples with Bazel
# (-c opt, as users ship them) and packs them into one folder a GPU
# machine can run with tests/gpu/run.sh:
#
#   tests/gpu/build.sh [BUNDLE]        # default: out/gpu-bundle
#
# BUNDLE gets run.sh (a copy of tests/gpu/run.sh), bin/ (the stripped programs), lib/ (this machine's dynamic
# loader, libc, libm, libstdc++ and libgcc_s: run.sh falls back to them
# when the GPU machine's own are too old for the programs) and
# programs.txt (one program a line). The CUDA programs link cudart
# statically, so the GPU machine needs only its driver's libcuda.so.1; no
# CUDA 11.8, no LLVM. The OpenMP programs load LLVM 16's OpenMP runtime
# (libomp, libomptarget, its CUDA plugins and libLLVM-16 with what it
# loads), packed as openmp-runtime.tar.xz from the @offload_llvm16
# repository the programs were built with (run.sh unpacks it). Fails when
# the bundle exceeds 60 MiB (what one device call may carry is 64 MiB).
#
# Environment: XZ_LEVEL, how hard to compress the OpenMP runtime (default
# 6: what a device call can carry; tests/bazel's dry run uses 0, as it
# carries nothing); OUTPUT_BASE, a Bazel output base to build in (tests/bazel's
# run.sh passes its own to share the server); BAZEL_FLAGS, more flags;
# UNFIXED_RULES, a checkout of rules_offload from before a fix: the Thrust
# program is also built with its rules and packed as
# thrust_sort_reduce_unfixed, expected to fail on a GPU (the check seen
# failing: before the __CUDA_ARCH_LIST__ fix, its CUB kernels are missing
# from the device images).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bundle=${1:-$root/out/gpu-bundle}
mkdir -p "$(dirname "$bundle")"
bundle=$(cd "$(dirname "$bundle")" && pwd)/$(basename "$bundle")

# Each program: its Bazel label. The order is the order run.sh runs them.
programs=(
  @rules_offload_examples//cuda:vector_add_main
  @rules_offload_examples//cuda:saxpy_main
  @rules_offload_gpu//:ptx_jit
  @rules_offload_gpu//:cub_block_reduce
  @rules_offload_gpu//:curand_device
  @rules_offload_gpu//:thrust_sort_reduce
  @rules_offload_gpu//:openmp_target
  @rules_offload_gpu//:openmp_fleet
)

(cd "$root" && go build -trimpath -o bin/offload ./tool/offload)
bz=(bazel)
[ -n "${OUTPUT_BASE:-}" ] && bz+=(--output_base="$OUTPUT_BASE")
flags=(-c opt --jobs=2 ${BAZEL_FLAGS:-})
cd "$root/tests/bazel"
"${bz[@]}" build "${flags[@]}" "${programs[@]}"
bin=$("${bz[@]}" info "${flags[@]}" bazel-bin 2>/dev/null)

chmod -R u+w "$bundle" 2>/dev/null || true
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
: >"$bundle/programs.txt"
for label in "${programs[@]}"; do
  repo=${label%%//*}
  repo=${repo#@}
  path=${label#*//}
  pkg=${path%%:*}
  name=${path#*:}
  file="$bin/external/$repo/${pkg:+$pkg/}$name"
  strip -o "$bundle/bin/$name" "$file"
  echo "$name $label" >>"$bundle/programs.txt"
done

if [ -n "${UNFIXED_RULES:-}" ]; then
  unfixed=(--override_repository=rules_offload="$UNFIXED_RULES")
  "${bz[@]}" build "${flags[@]}" "${unfixed[@]}" @rules_offload_gpu//:thrust_sort_reduce
  strip -o "$bundle/bin/thrust_sort_reduce_unfixed" "$bin/external/rules_offload_gpu/thrust_sort_reduce"
  echo "thrust_sort_reduce_unfixed @rules_offload_gpu//:thrust_sort_reduce(rules:$(git -C "$UNFIXED_RULES" rev-parse --short HEAD)) FAILED" >>"$bundle/programs.txt"
  # Leave bazel-bin as the fixed rules built it.
  "${bz[@]}" build "${flags[@]}" @rules_offload_gpu//:thrust_sort_reduce
fi

# The fallback runtime: what the first program loads, from this machine.
first=$(head -1 "$bundle/programs.txt" | cut -d' ' -f1)
ldd "$bundle/bin/$first" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
  cp -L "$lib" "$bundle/lib/"
done
for name in $(cut -d' ' -f1 "$bundle/programs.txt"); do
  ldd "$bundle/bin/$name" | awk '/=> \//{print $3}' | while read -r lib; do
    [ -e "$bundle/lib/$(basename "$lib")" ] || cp -L "$lib" "$bundle/lib/"
  done
done

# LLVM 16's OpenMP runtime for the OpenMP programs: libomp and libomptarget
# under their sonames (the programs' NEEDED), the CUDA plugins under the
# unversioned names libomptarget dlopens, and what they load apart from
# the C and C++ runtimes (libLLVM-16, libz3, libxml2, ICU, ...). Not the
# host-CPU or AMDGPU plugins: on the GPU machine the CUDA device must be
# the only one, so a region that ran anywhere else cannot pass.
omp_repo="$("${bz[@]}" info "${flags[@]}" output_base 2>/dev/null)/external/offload_llvm16/openmp/lib"
omp=$(mktemp -d)
trap 'chmod -R u+w "$omp"; rm -rf "$omp"' EXIT
mkdir -p "$omp/openmp"
cp -L "$omp_repo/libomp.so.5" "$omp_repo/libomptarget.so.16" "$omp/openmp/"
for plugin in cuda cuda.nextgen; do
  cp -L "$omp_repo/libomptarget.rtl.$plugin.so.16" "$omp/openmp/libomptarget.rtl.$plugin.so"
done
for f in "$omp/openmp"/*; do
  ldd "$f" | awk '/=> \//{print $1, $3}' | while read -r name lib; do
    case "$name" in
      libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
      *) [ -e "$omp/openmp/$name" ] || cp -L "$lib" "$omp/openmp/$name" ;;
    esac
  done
done
chmod -R u+w "$omp/openmp"
tar -C "$omp" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - openmp | xz "-${XZ_LEVEL:-6}" -T2 >"$bundle/openmp-runtime.tar.xz"

# The bundle runs itself: BUNDLE/run.sh BUNDLE on the GPU machine.
cp "$here/run.sh" "$bundle/run.sh"

size=$(du -sb "$bundle" | cut -f1)
echo "tests/gpu: $(wc -l <"$bundle/programs.txt") programs in $bundle, $((size / 1024 / 1024)) MiB"
# (A bundle packed with XZ_LEVEL=0 is for a dry run here, carried nowhere.)
if [ "$size" -gt $((60 * 1024 * 1024)) ] && [ "${XZ_LEVEL:-6}" != 0 ]; then
  echo "tests/gpu: the bundle is over 60 MiB; a device call carries 64 MiB" >&2
  exit 1
fi
