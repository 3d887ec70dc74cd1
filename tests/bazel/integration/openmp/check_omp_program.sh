#!/usr/bin/env bash
# check_omp_program.sh PROGRAM SHIM TARGET...
#
# An OpenMP program of offload_device_link, checked with LLVM 22's tools and
# at libomptarget's door. TARGET is ARCH/TRIPLE (ARCH empty for a host-CPU
# device), one per target of the program, in the order the rules register
# them (sorted target names).
#   1. llvm-objdump-22 --offloading lists one image per target: kind elf
#      (IMG_Object, as clang-linker-wrapper 16 writes it), producer openmp,
#      its arch and triple.
#   2. Under an LD_PRELOAD recorder of __tgt_register_lib, the program
#      registers one descriptor with one image per target, each a whole
#      OffloadBinary naming its arch and triple (llvm-objdump-22 reads the
#      dumped bytes), each with the host's entry table; the program still
#      runs to its result (exit 0).
#   3. The host entries (names as registered) and each image's entries agree
#      by name: every host entry is a symbol the image defines, and the
#      image's kernels (__omp_offloading_*, without the other symbols
#      named after them) are exactly the host's.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/integration/lib.sh"
need llvm-objdump-22
need llvm-offload-binary-22
program=$1 shim=$2
shift 2
want=$(for t in "$@"; do echo "elf|${t%%/*}|${t#*/}|openmp"; done)
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/omp.XXXXXX")

# llvm-objdump-22 --offloading FILE: "kind|arch|triple|producer" per image.
images_of() {
  llvm-objdump-22 --offloading "$1" | awk '
    /^OFFLOADING IMAGE/ { if (n++) print k "|" a "|" t "|" p; k = a = t = p = "" }
    $1 == "kind" { k = $2 } $1 == "arch" { a = $2 } $1 == "triple" { t = $2 } $1 == "producer" { p = $2 }
    END { if (n) print k "|" a "|" t "|" p }'
}

# 1. What the program holds.
got=$(images_of "$program")
[ "$got" = "$want" ] || fail "llvm-objdump-22 --offloading $program lists"$'\n'"${got:-nothing}"$'\n'"want"$'\n'"$want"
echo "ok: llvm-objdump-22 --offloading lists $# images: $(paste -sd' ' <<<"$got")"

# 2. What it registers.
log="$work/registered"
set +e
SHIM_LOG="$log" LD_PRELOAD="$(realpath "$shim")" "$program" >"$work/out" 2>&1
rc=$?
set -e
cat "$work/out"
[ "$rc" = 0 ] || fail "under the recorder, $program exited $rc"
[ -s "$log" ] || fail "nothing registered with __tgt_register_lib (no log)"
echo "--- registered:"
cat "$log"
descs=$(grep -c '^tgt_register_lib ' "$log")
[ "$descs" = 1 ] || fail "$descs descriptors registered, want 1"
grep -q "^tgt_register_lib images=$# " "$log" || fail "want $# images, one per target"
registered=""
for ((i = 0; i < $#; i++)); do
  line=$(grep "^image $i " "$log") || fail "no image $i"
  [[ $line == *" entries=host "* ]] || fail "image $i does not carry the host's entry table: $line"
  file=${line##* file=}
  one=$(images_of "$file")
  [ "$(wc -l <<<"$one")" = 1 ] || fail "image $i is not one OffloadBinary: ${one:-llvm-objdump-22 reads none}"
  registered+=$one$'\n'
done
registered=${registered%$'\n'}
[ "$registered" = "$want" ] || fail "registered images are"$'\n'"$registered"$'\n'"want"$'\n'"$want"
echo "ok: one __tgt_register_lib, $# images, each an OffloadBinary: $(paste -sd' ' <<<"$registered")"

# 3. Host entries and each image's entries, by name.
host=$(sed -n 's/^host_entry \([^ ]*\) .*/\1/p' "$log" | sort)
host_kernels=$(grep '^__omp_offloading_' <<<"$host" || true)
[ -n "$host_kernels" ] || fail "no kernel among the host entries: the check would prove nothing"
i=0
for t in "$@"; do
  arch=${t%%/*} triple=${t#*/}
  keys="triple=$triple,kind=openmp"
  [ -z "$arch" ] || keys+=",arch=$arch"
  (cd "$work" && llvm-offload-binary-22 "$log.image$i" --image=file="elf$i,$keys") ||
    fail "llvm-offload-binary-22 cannot extract $t from image $i"
  # Defined symbols, static and dynamic (the x86_64 and AMDGPU images
  # export theirs), without the AMDGPU kernel descriptors' suffixes.
  defined=$( (llvm-objdump-22 -t "$work/elf$i" 2>/dev/null; llvm-objdump-22 -T "$work/elf$i" 2>/dev/null) |
    awk 'NF >= 4 && $0 !~ /\*UND\*/ { print $NF }' | sort -u)
  for e in $host; do
    grep -qxF "$e" <<<"$defined" || fail "image $i ($t) does not define host entry $e"
  done
  # Not kernels: AMDGPU's descriptors, LLVM 16's modes, the host-CPU
  # image's region ids, and LLVM 19's per-kernel environments (globals)
  # and outlined regions (local functions, kept at -O0).
  kernels=$(grep -E '^__omp_offloading_' <<<"$defined" |
    grep -vE '(\.kd|_exec_mode|\.region_id|_kernel_environment|_dynamic_environment|([._]omp_outlined)+)$' || true)
  [ "$kernels" = "$host_kernels" ] || fail "image $i ($t) kernels"$'\n'"$kernels"$'\n'"host entries"$'\n'"$host_kernels"
  i=$((i + 1))
done
echo "ok: every image defines the $(wc -l <<<"$host") host entries ($(paste -sd' ' <<<"$host")), and its kernels are the host's"
