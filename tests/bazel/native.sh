#!/usr/bin/env bash
# Sourced by run.sh (or run alone: `tests/bazel/native.sh`): targets
# "native" (--@rules_offload//rules:targets=native) takes the GPUs that
# amdgpu-arch and nvptx-arch print when @offload_native is fetched. Fakes
# named by $OFFLOAD_AMDGPU_ARCH / $OFFLOAD_NVPTX_ARCH (--repo_env) print a
# chosen list: a HIP bundle compiles for exactly the AMD ones (repeats
# dropped), a CUDA package for the NVIDIA one; fakes that find nothing fail
# analysis with the reason.
source "$(dirname "${BASH_SOURCE[0]}")/alone.sh"

fakes="$scratch/native_fakes"
mkdir -p "$fakes"
printf '#!/bin/sh\nprintf "gfx90a\\ngfx1030\\ngfx90a\\n"\n' >"$fakes/amdgpu-arch"
printf '#!/bin/sh\necho sm_90\n' >"$fakes/nvptx-arch"
printf '#!/bin/sh\nexit 0\n' >"$fakes/none"
printf '#!/bin/sh\necho "fake: no driver" >&2\nexit 1\n' >"$fakes/broken"
chmod +x "$fakes"/*
native_archs() { # AMDGPU_ARCH NVPTX_ARCH TARGET: the --offload-arch values of TARGET's compiles
  (cd "$here" && bz aquery "${bazel_flags[@]}" --@rules_offload//rules:targets=native \
    --repo_env=OFFLOAD_AMDGPU_ARCH="$1" --repo_env=OFFLOAD_NVPTX_ARCH="$2" \
    "mnemonic(\"OffloadCompile\", $3)") >"$scratch/native.out" 2>"$scratch/native.err" &&
    grep -oE -- "--offload-arch=[^ ']+" "$scratch/native.out" | sort -u | tr '\n' ' '
}
got=$(native_archs "$fakes/amdgpu-arch" "$fakes/nvptx-arch" //integration:native_hip)
if [ "$got" = "--offload-arch=gfx1030 --offload-arch=gfx90a " ]; then
  ok "targets native: a HIP bundle compiles for the fake amdgpu-arch's gfx90a and gfx1030"
else
  bad "targets native (HIP): got '$got' $(grep -m3 ERROR "$scratch/native.err")"
fi
got=$(native_archs "$fakes/amdgpu-arch" "$fakes/nvptx-arch" //integration:native_cuda)
if [ "$got" = "--offload-arch=sm_90 " ]; then
  ok "targets native: a CUDA package compiles for the fake nvptx-arch's sm_90"
else
  bad "targets native (CUDA): got '$got' $(grep -m3 ERROR "$scratch/native.err")"
fi
if native_archs "$fakes/none" "$fakes/broken" //integration:native_hip >/dev/null; then
  bad "targets native with no GPU: analysis passed"
elif grep -q 'targets "native": no HIP GPU on this machine.*found no GPU' "$scratch/native.err"; then
  ok "targets native with no AMD GPU: $(grep -o 'targets "native": no HIP GPU[^;]*' "$scratch/native.err")"
else
  bad "targets native with no GPU failed otherwise: $(grep -m3 ERROR "$scratch/native.err")"
fi
if native_archs "$fakes/none" "$fakes/broken" //integration:native_cuda >/dev/null; then
  bad "targets native with a failing nvptx-arch: analysis passed"
elif grep -q 'no CUDA GPU on this machine.*exited 1: fake: no driver' "$scratch/native.err"; then
  ok "targets native with a failing nvptx-arch: the error quotes it"
else
  bad "targets native with a failing nvptx-arch failed otherwise: $(grep -m3 ERROR "$scratch/native.err")"
fi

alone_end
