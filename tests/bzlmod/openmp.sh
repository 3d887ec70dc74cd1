# The bzlmod leg's OpenMP GPU checks, sourced by run.sh (after check 3; it
# uses run.sh's bz, ok, bad, scratch and ws). The OpenMP example's toolchain
# is LLVM 21 here, whose device runtime is in LLVM 20's layout
# (lib/<triple>/libompdevice.a, from liboffload-21-dev):
#   a. the two OpenMP GPU programs of tests/gpu, -c opt: llvm-objdump-21
#      --offloading lists one image per declared target; run here (no GPU),
#      openmp_target (sm_90 alone) reaches "no device" (exit 2), and
#      openmp_fleet, which also has an x86_64 image, runs its regions on
#      libomptarget's host-CPU device and reports that they did not run on a
#      GPU (exit 1): every image registered, the host one loaded;
#   b. the OpenMP example's sm_70, sm_90 and gfx90a images, -c opt, are
#      byte-identical to clang-21 -fopenmp --offload-arch=... -O2's own
#      (clang-linker-wrapper --save-temps keeps them), built from the same
#      files (kernels are named after the source's device and inode).
# Check 4 and the NVPTX device compiles of a -O0 (fastbuild) build: their
# cubins are compared modulo symbol order (omp_reordered), and what embeds
# them is not compared (omp_embedders). LLVM's NVPTX asm printer (21 and
# 23.1 measured) declares a global's not yet emitted dependencies in
# pointer-hash order (a DenseSet in VisitGlobalVariableForEmission), so
# their order moves with the heap's addresses (ASLR). clang's -c links
# libomptarget-nvptx.bc (-mlink-builtin-bitcode; -S does not), and the
# linker puts the runtime's @llvm.used ahead of the three weak globals it
# lists (__omp_rtl_device_environment, _memory_pool, _memory_pool_tracker):
# those three come out in any of their six orders, clang-21's own -c too
# (four outputs in eight runs; one under setarch -R). -O1 and up are stable:
# GlobalOpt rebuilds @llvm.used at the module's end. LLVM 16's runtime lists
# one global variable there, so its PTX is stable. docs/compatibility.md has more.

omp_lib=/usr/lib/llvm-21/lib
omp_programs=(//gpu:openmp_target //gpu:openmp_fleet)
# The -O0 NVPTX cubins: the same sections (name, type) and the same symbols
# (name, size, type, binding, visibility), in any order. Not their bytes:
# ptxas lays the globals out in the PTX's order, so the data sections, the
# symbol indices that relocations, .nv.info and .nv.callgraph name, and the
# symbols' offsets all follow the order the asm printer picked.
omp_reordered='^openmp/_offload/(saxpy|saxpy_device_link)/sm_[0-9]+/[^/]+\.o$'
# What embeds them: the offload binary, its wrapper and the programs.
omp_embedders='^openmp/(_offload/saxpy_device_link/saxpy_device_link\.(offloadbin|wrapper\.c)|_objs/saxpy_device_link/saxpy_device_link\.wrapper\.pic\.o|saxpy_test|saxpy_registration_test(\.record|_recorder))$'

# A cubin as check 4 compares an omp_reordered one: its ELF flags (the SM),
# its sections' names and types (and the code's sizes), and its symbols'
# names, sizes, types, bindings and visibilities, each list sorted.
omp_cubin_shape() {
  readelf -hW "$1" 2>/dev/null | grep -E '^ *Flags:'
  readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p' |
    awk '{print $1, $2, ($1 ~ /^\.text/ ? $5 : "")}' | sort
  readelf -sW "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+:$/ {print $8, $3, $4, $5, $6}' | sort
}

# "arch/triple" of every image llvm-objdump-21 --offloading lists, sorted.
omp_images() {
  llvm-objdump-21 --offloading "$1" | awk '$1 == "arch" {a = $2} $1 == "triple" {print a "/" $2; a = ""}' | sort | paste -sd' '
}

t1=$(date +%s)
if bz build -c opt "${omp_programs[@]}" //openmp:saxpy_device_link >"$scratch/omp.log" 2>&1; then
  omp_bin=$(bz info -c opt bazel-bin 2>/dev/null)
  ok "the OpenMP GPU programs and the example's device link build -c opt with LLVM 21 ($(($(date +%s) - t1))s)"

  # a. The programs: their images, and what they do without a GPU.
  for p in "${omp_programs[@]}"; do
    f=$omp_bin/gpu/${p#//gpu:}
    case $p in
    *openmp_target) want="sm_90/nvptx64-nvidia-cuda" want_rc=2 want_out="no device: omp_get_num_devices() is 0" ;;
    *) want="/x86_64-pc-linux-gnu gfx90a/amdgcn-amd-amdhsa sm_70/nvptx64-nvidia-cuda sm_90/nvptx64-nvidia-cuda" want_rc=1 \
      want_out="did not run on a GPU (on_gpu 0, omp_is_initial_device 0" ;;
    esac
    got=$(omp_images "$f")
    out=$(LD_LIBRARY_PATH=$omp_lib timeout 120 "$f" 2>&1)
    st=$?
    if [ "$got" = "$want" ] && [ $st -eq $want_rc ] && grep -qF "$want_out" <<<"$out"; then
      ok "$p: images $got; runs here (exit $st) to: $(head -1 <<<"$out")"
    else
      bad "$p: images '$got' (want '$want'), exit $st (want $want_rc): $out"
    fi
  done

  # b. The example's GPU images against clang-21's own -O2 build.
  cmpdir=$scratch/clang21
  mkdir -p "$cmpdir"
  (cd "$cmpdir" && clang-21 -fopenmp --offload-arch=gfx90a,sm_70,sm_90 -O2 "$ws/openmp/saxpy_main.c" "$ws/openmp/scale.c" \
    -o prog -Wl,--save-temps >clang.log 2>&1)
  same=() differ=()
  for t in gfx90a sm_70 sm_90; do
    case $t in sm_*) theirs=$cmpdir/prog.nvptx64.$t.img ;; *) theirs=$cmpdir/prog.amdgcn.$t.img ;; esac
    if cmp -s "$theirs" "$omp_bin/openmp/_offload/saxpy_device_link/$t/saxpy_device_link.o"; then
      same+=("$t ($(wc -c <"$theirs") bytes)")
    else
      differ+=("$t")
    fi
  done
  if [ ${#differ[@]} -eq 0 ]; then
    ok "-c opt: the OpenMP example's images equal clang-21 -fopenmp --offload-arch=gfx90a,sm_70,sm_90 -O2's byte for byte: ${same[*]}"
  else
    bad "-c opt: the OpenMP example's ${differ[*]} image(s) differ from clang-21 -O2's (in $cmpdir; $(tail -3 "$cmpdir/clang.log"))"
  fi
else
  bad "the OpenMP GPU programs -c opt: $(grep -m5 -E 'ERROR|error' "$scratch/omp.log")"
fi
