#!/usr/bin/env bash
# matches_clang19.sh SOURCE... -- IMAGE...
#
# The device images offload_device_link linked for an OpenMP program with
# clang-19 (IMAGE: <rule>/<target>/<file>, from its device_images group),
# built -c opt, against the ones clang-19 -fopenmp --offload-arch=... -O2
# links itself when it builds the same sources into a program in one
# command, taken out of that program by `offload extract`; the same LLVM 19,
# CUDA and ROCm repositories (the test's data):
#   sm_XX: byte for byte. clang-linker-wrapper 19 runs its own LTO of the
#     processor's device runtime member (the functions the cubins leave
#     undefined), ptxas and nvlink; the rules run that LTO in
#     clang-nvlink-wrapper, with the runtime's bitcode first.
#   gfxXXX: the same e_flags, the same dynamic symbols (kernels, their
#     descriptors and modes, globals) and the same functions with the same
#     sizes. The bytes of .text differ, by layout only:
#     clang-linker-wrapper 19 compiles its LTO's result to assembly and
#     assembles that into one .text (the kernels, s_nop between them up to
#     their 256-byte alignment, then the code-end padding, 0x400 bytes of
#     s_nop); lld's LTO emits an object with a section per function
#     (always: lld has no switch for it), so lld lays out the plain .text
#     that holds the padding first, then the kernels' .text.<name>, with
#     zeros between them. Each kernel's own bytes are the same but for
#     the PC-relative offsets that the move changes (measured on saxpy:
#     the first kernel's 380 bytes equal).
# The host-CPU image is not compared (a shared object of either linker).
# Both builds read the sources through links to the same files: clang
# names kernels after the source's device and inode numbers.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/openmp/matches_clang_lib.sh"
need llvm-readelf-22
clang19=$runfiles/offload_llvm19/bin/clang
cuda=$runfiles/offload_cuda
bitcode=$runfiles/offload_rocm/amdgcn/bitcode
offload=$runfiles/offload_prebuilt/offload
[ -x "$clang19" ] || fail "no clang-19 in the runfiles (data @offload_llvm19//:llvm)"
[ -x "$offload" ] || fail "no offload tool in the runfiles (data @offload_prebuilt//:offload)"
[ -x "$cuda/bin/nvlink" ] || fail "no nvlink in $cuda (data @offload_cuda//:bin/nvlink)"
[ -f "$bitcode/ocml.bc" ] || fail "no ROCm device libraries in $bitcode (data @offload_rocm//:rocm)"
# Debian's clang-19 looks for libomptarget-nvptx-sm_XX.bc in the host's
# library directories and LIBRARY_PATH only, not in its own lib/.
llvm_lib=$(dirname "$(dirname "$(realpath "$clang19")")")/lib
[ -f "$llvm_lib/libomptarget.devicertl.a" ] || fail "LLVM 19 at $llvm_lib has no OpenMP device runtime (libomp-19-dev)"

parse_images "$@"

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/clang19.XXXXXX")
cd "$work"
LIBRARY_PATH=$llvm_lib "$clang19" -fopenmp --offload-arch="$arch_list" -O2 --cuda-path="$cuda" -Wno-unknown-cuda-version \
  --rocm-device-lib-path="$bitcode" "${srcs[@]}" -o prog >clang.log 2>&1 ||
  fail "clang-19 -fopenmp --offload-arch=$arch_list -O2 failed: $(tail -5 clang.log)"
"$offload" extract -o images prog >extract.log 2>&1 || fail "offload extract prog failed: $(cat extract.log)"
n=$(find images -type f | wc -l)
[ "$n" = ${#archs[@]} ] || fail "clang-19's program holds $n images, want ${#archs[@]}: $(ls images)"
for t in "${archs[@]}"; do
  case $t in
  sm_*)
    theirs=images/prog-openmp-nvptx64-nvidia-cuda-$t.o
    [ -f "$theirs" ] || fail "clang-19's program has no $t image: $(ls images)"
    cmp "$theirs" "${ours[$t]}" || fail "$t: ${ours[$t]} differs from clang-19's image"
    echo "ok: $t image is byte-identical to clang-19 -fopenmp --offload-arch=$arch_list -O2's ($(wc -c <"$theirs") bytes)"
    ;;
  gfx*)
    theirs=images/prog-openmp-amdgcn-amd-amdhsa-$t.o
    [ -f "$theirs" ] || fail "clang-19's program has no $t image: $(ls images)"
    functions() { llvm-readelf-22 -s -W "$1" | awk '$1 ~ /^[0-9]+:$/ && $4 == "FUNC" { print $8, $3 }' | sort -u; }
    same_flags_and_symbols "$t" "$theirs" "${ours[$t]}" clang-19
    diff <(functions "$theirs") <(functions "${ours[$t]}") || fail "$t: functions or their sizes differ from clang-19's (< theirs, > ours)"
    echo "ok: $t image has clang-19's e_flags ($(elf_flags "$theirs")), its $n dynamic symbols and its functions with their sizes ($(functions "$theirs" | paste -sd' '))"
    ;;
  esac
done
