#!/usr/bin/env bash
# The GPU check of targets = ["native"] (tests/gpu/native_bundle.sh packs
# it): runs nvptx-arch as @offload_native does and compares what it prints
# with the GPUs nvidia-smi reports. Exits 0 when they agree, 1 when they
# differ, 2 when neither sees a GPU.
set -uo pipefail
bundle=${1:?usage: run.sh BUNDLE}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tar -C "$scratch" -xJf "$bundle/native.tar.xz"
got=$(LD_LIBRARY_PATH="$scratch/native/lib" "$scratch/native/bin/nvptx-arch" 2>"$scratch/err" | sort -u | paste -sd, -)
want=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d . | sed 's/^/sm_/' | sort -u | paste -sd, -)
echo "nvptx-arch (as @offload_native runs it): ${got:-nothing} $(head -1 "$scratch/err")"
echo "nvidia-smi compute capabilities: ${want:-none}"
if [ -z "$want" ] && [ -z "$got" ]; then
  echo "native: no device: neither nvptx-arch nor nvidia-smi sees an NVIDIA GPU"
  exit 2
elif [ -n "$want" ] && [ "$got" = "$want" ]; then
  echo "native: PASSED: targets = [\"native\"] expands to $got on this machine"
else
  echo "native: FAILED"
  exit 1
fi
