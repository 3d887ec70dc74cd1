#!/usr/bin/env bash
# Packs what @offload_native runs to find the machine's NVIDIA GPUs (LLVM
# 22's nvptx-arch, an alias of offload-arch, with the libraries it loads:
# libLLVM among them, xz-compressed) into BUNDLE (default
# out/gpu-native), with run.sh from native_run.sh:
#
#   tests/gpu/native_bundle.sh [BUNDLE]
#   bash BUNDLE/run.sh BUNDLE     # on the GPU machine
#
# run.sh runs nvptx-arch as the repository rule does (no arguments, one GPU
# a line) and checks that it names the GPU that nvidia-smi reports
# (compute capability 9.0 -> sm_90): the list targets = ["native"] expands
# to (tests/bazel/native.sh checks the expansion with fakes). A separate
# bundle: libLLVM alone is more than the programs' bundle leaves of the
# 64 MiB a device call carries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bundle=${1:-$root/out/gpu-native}
tool=$(readlink -f "$(command -v nvptx-arch-22)")
rm -rf "$bundle"
mkdir -p "$bundle/native/bin" "$bundle/native/lib"
cp "$tool" "$bundle/native/bin/nvptx-arch"
ldd "$tool" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libgcc_s.so.*|libstdc++.so.*) ;;  # the machine's own
    *) cp -L "$lib" "$bundle/native/lib/" ;;
  esac
done
tar -C "$bundle" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - native |
  xz -6 -T2 >"$bundle/native.tar.xz"
rm -rf "$bundle/native"
cp "$here/native_run.sh" "$bundle/run.sh"
echo "tests/gpu: nvptx-arch in $bundle, $(($(du -sb "$bundle" | cut -f1) / 1024 / 1024)) MiB"
