#!/bin/sh
# Regenerates the bitcode fixtures from src/ and, for each, records what
# LLVM says about it: <fixture>.armap, the archive map LLVM writes for it
# (one symbol per line, as `llvm-nm-22 --print-armap` lists an archive made
# by `llvm-ar-22 rc`), and <fixture>.symtab, `llvm-lto2-22 dump-symtab`.
# Recorded with Debian LLVM 22.1.8 and clang 16.0.6.
set -eu
cd "$(dirname "$0")"
c22="clang-22" cxx22="clang++-22"
$c22 -fcommon -flto -c src/symkinds.c -o clang22-x86_64-flto-symkinds.bc
$c22 -flto=thin -c src/symkinds.c -o clang22-x86_64-thinlto-symkinds.bc
$c22 -flto -c src/module-asm.c -o clang22-x86_64-flto-module-asm.bc
$cxx22 -flto -c src/symkinds.cpp -o clang22-x86_64-flto-cxx.bc
$cxx22 -flto=thin -fsanitize=cfi -fno-sanitize-ignorelist -fvisibility=hidden -c src/symkinds.cpp \
	-o clang22-x86_64-thinlto-cfi-two-modules.bc
$cxx22 -x hip --cuda-device-only -fgpu-rdc -emit-llvm -c --offload-arch=gfx906 -nogpuinc -nogpulib \
	--no-gpu-bundle-output src/device.hip -o clang22-amdgcn-gfx906-hip-rdc.bc
$cxx22 -x cuda --cuda-device-only -fgpu-rdc -emit-llvm -c --cuda-gpu-arch=sm_52 -nocudainc -nocudalib \
	src/device.hip -o clang22-nvptx64-sm52-cuda-rdc.bc
$c22 -target x86_64-apple-macosx11 -flto -c src/dev.c -o clang22-x86_64-darwin-wrapper.bc
clang-16 -flto -c src/dev.c -o clang16-x86_64-flto-dev.bc
llvm-cat-22 -b clang22-x86_64-flto-symkinds.bc clang22-x86_64-flto-module-asm.bc -o llvmcat22-two-modules-no-symtab.bc
for f in *.bc; do
	rm -f armap.tmp.a
	llvm-ar-22 --format=gnu rc armap.tmp.a "$f"
	llvm-nm-22 --print-armap armap.tmp.a | sed -n '2,/^$/p' | sed '/^$/d; s/ in [^ ]*$//' >"${f%.bc}.armap"
	llvm-lto2-22 dump-symtab "$f" >"${f%.bc}.symtab"
done
rm -f armap.tmp.a
