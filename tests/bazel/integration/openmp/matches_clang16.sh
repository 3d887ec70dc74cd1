#!/usr/bin/env bash
# matches_clang16.sh SOURCE... -- IMAGE...
#
# The device images offload_device_link linked for an OpenMP program
# (IMAGE: <rule>/<target>/<file>, from its device_images group) against the
# ones clang-16 links itself when it builds the same sources in one command
# (clang-linker-wrapper, --save-temps keeps its images), with the same LLVM
# 16, CUDA and ROCm repositories (the test's data):
#   sm_XX: byte for byte (both are nvlink's output of the same relocatable
#     cubins);
#   gfxXXX: the same e_flags and the same dynamic symbols (kernels, their
#     descriptors and modes, globals). The bytes differ: the rules link by
#     lld full LTO with the device runtime's bitcode, clang-linker-wrapper 16
#     runs its own LTO in process with libomptarget.devicertl.a and then
#     lld; its LTO drops five small runtime functions that lld's keeps.
# The host-CPU image is not compared (a shared object of either linker).
# Both builds read the sources through links to the same files: clang-16
# names kernels after the source's device and inode numbers, so a build
# from copies (a remote worker's) gives other names.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/openmp/matches_clang_lib.sh"
need llvm-readelf-22
clang16=$runfiles/offload_llvm16/bin/clang
cuda=$runfiles/offload_cuda
bitcode=$runfiles/offload_rocm/amdgcn/bitcode
[ -x "$clang16" ] || fail "no clang-16 in the runfiles (data @offload_llvm16//:llvm)"
[ -x "$cuda/bin/nvlink" ] || fail "no nvlink in $cuda (data @offload_cuda//:bin/nvlink)"
[ -f "$bitcode/ocml.bc" ] || fail "no ROCm device libraries in $bitcode (data @offload_rocm//:rocm)"

parse_images "$@"

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clang16.XXXXXX")
cd "$work"
# Only the device images matter: the host link after them needs libomp and
# libomptarget, which may not be on this machine's library path.
"$clang16" -fopenmp --offload-arch="$arch_list" --cuda-path="$cuda" -Wno-unknown-cuda-version \
  --rocm-device-lib-path="$bitcode" "${srcs[@]}" -o prog --save-temps >clang.log 2>&1 || true
for t in "${archs[@]}"; do
  case $t in
  sm_*)
    theirs=prog.nvptx64.$t.img
    [ -f "$theirs" ] || fail "clang-16 linked no $theirs: $(tail -5 clang.log)"
    cmp "$theirs" "${ours[$t]}" || fail "$t: ${ours[$t]} differs from clang-16's $theirs"
    echo "ok: $t image is byte-identical to clang-16 -fopenmp --offload-arch=$arch_list's ($(wc -c <"$theirs") bytes)"
    ;;
  gfx*)
    theirs=prog.amdgcn.$t.img
    [ -f "$theirs" ] || fail "clang-16 linked no $theirs: $(tail -5 clang.log)"
    same_flags_and_symbols "$t" "$theirs" "${ours[$t]}" clang-16
    echo "ok: $t image has clang-16's e_flags ($(elf_flags "$theirs")) and its $n dynamic symbols ($(dynamic_symbols "$theirs" | awk '{print $4}' | paste -sd' '))"
    ;;
  esac
done
