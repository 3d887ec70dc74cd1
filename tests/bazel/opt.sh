# -c opt checks of run.sh (sourced; uses its ok, bad, bz, bazel_flags,
# scratch and root). Under -c opt device code must be what clang's own
# single-command build makes from the same source with the same cuid at -O2:
#   whole-program (vector add): the fat binary Bazel embeds in each host
#   object equals the one in clang++-22 -O2 -c's object (section .hip_fatbin
#   for HIP, .nv_fatbin for CUDA), byte for byte;
#   Thrust (sort and reduce on @offload_cuda//:thrust, sm_70 and sm_90): the
#   same, which holds only if each per-target device compile sees the whole
#   __CUDA_ARCH_LIST__ (CUB names its kernels after it);
#   RDC (saxpy over two libraries): every linked device image equals the one
#   clang++-22 -fgpu-rdc --offload-new-driver -O2 makes when it compiles both
#   sources (from the execroot, as Bazel does: bitcode records the source
#   path) and links them (--save-temps keeps its images). The container's
#   entry order is clang-linker-wrapper's hash-map order, so there only the
#   set of entries is compared.
# The clang and the layout are variables with the WORKSPACE leg's values as
# defaults, so that another leg sources this file with its own (clang-23 in
# bzlmod mode: opt_clang=clang++-23, the examples the main repository):
#   opt_clang, opt_objcopy   the reference clang++ and llvm-objcopy
#   opt_repo                 the examples' repository in labels ("" = main)
#   opt_src                  their directory in the execroot ("" = main)
#   opt_examples             their sources
#   opt_rocm_flags           the reference build's ROCm flags (an array)
#   opt_cuda                 the CUDA installation
#   opt_offload              the offload binary that unbundles ("images")
#   opt_hip_flags            more flags of the reference HIP -c (an array)
#   opt_compare              "container" (default): the fat binaries byte
#                            for byte; "images": each code object and cubin
#                            in them (clang-23: the containers differ by
#                            design, docs/compatibility.md "LLVM 23")

opt_clang=${opt_clang:-clang++-22}
opt_objcopy=${opt_objcopy:-llvm-objcopy-22}
opt_repo=${opt_repo-@rules_offload_examples}
opt_src=${opt_src-external/rules_offload_examples}
opt_examples=${opt_examples:-$root/examples}
opt_cuda=${opt_cuda:-/usr/lib/cuda}
if [ -z "${opt_rocm_flags+set}" ]; then
  opt_rocm_flags=(--rocm-path=/usr --hip-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
    -mcode-object-version=5)
fi
opt_compare=${opt_compare:-container}
opt_offload=${opt_offload:-$root/bin/offload}
[ -n "${opt_hip_flags+set}" ] || opt_hip_flags=()
# same_images A B: whether two fat binaries hold the same device images, as
# opt_compare says: all bytes, or each image (HIP: every entry but the host
# one, unbundled by ours; CUDA: every cubin, by cuobjdump).
same_images() {
  if [ "$opt_compare" = container ]; then
    cmp -s "$1" "$2"
    return
  fi
  local d
  d=$(mktemp -d "$work/images.XXXX")
  mkdir -p "$d/a" "$d/b"
  case $1 in
  *.hipfb)
    local ids id
    ids=$("$opt_offload" bundler -type=o -list -input="$1" | grep -v '^host-' | sort)
    [ -n "$ids" ] && [ "$ids" = "$("$opt_offload" bundler -type=o -list -input="$2" | grep -v '^host-' | sort)" ] || return 1
    for id in $ids; do
      "$opt_offload" bundler -type=o -unbundle -targets="$id" -input="$1" -output="$d/a/$id" &&
        "$opt_offload" bundler -type=o -unbundle -targets="$id" -input="$2" -output="$d/b/$id" &&
        cmp -s "$d/a/$id" "$d/b/$id" || return 1
    done
    ;;
  *)
    (cd "$d/a" && cuobjdump -xelf all "$1" >/dev/null) && (cd "$d/b" && cuobjdump -xelf all "$2" >/dev/null) || return 1
    [ -n "$(ls "$d/a")" ] && [ "$(cd "$d/a" && md5sum * | cut -d' ' -f1 | sort)" = "$(cd "$d/b" && md5sum * | cut -d' ' -f1 | sort)" ]
    ;;
  esac
}
opt_bin=$(bz info "${bazel_flags[@]}" -c opt bazel-bin 2>/dev/null)${opt_src:+/$opt_src}
opt_libs=("$opt_repo//hip:vector_add" "$opt_repo//cuda:vector_add"
  "$opt_repo//hip:saxpy_device_link" "$opt_repo//cuda:saxpy_device_link"
  "$opt_repo//cuda:thrust_sort_reduce_lib")
if bz build "${bazel_flags[@]}" -c opt "${opt_libs[@]}" >"$scratch/opt.log" 2>&1; then
  examples="$opt_examples"
  work="$scratch/opt"
  mkdir -p "$work"
  # The cuid the rules derived for a library's source (from the host compile).
  opt_cuid() {
    bz aquery "${bazel_flags[@]}" -c opt "mnemonic(\"OffloadHostCompile\", $1)" 2>/dev/null |
      grep -oE -- "-cuid=[0-9a-f]+" | head -1 | cut -d= -f2
  }
  hip_cuid=$(opt_cuid "${opt_libs[0]}")
  cuda_cuid=$(opt_cuid "${opt_libs[1]}")
  rocm_flags=("${opt_rocm_flags[@]}")
  hip_archs=()
  for t in gfx906 gfx90a:xnack+ gfx1030; do
    case $t in gfx1[0-2][0-9][0-9]*) w=32 ;; *) w=64 ;; esac
    hip_archs+=("--offload-arch=$t" "-Xarch_$t" "-D__AMDGCN_WAVEFRONT_SIZE=$w")
  done
  opt_ok=yes
  opt_why=""
  if ! (cd "$examples/hip" && "$opt_clang" -x hip -O2 -c "${opt_hip_flags[@]}" "${hip_archs[@]}" -Xarch_host -D__AMDGCN_WAVEFRONT_SIZE=64 \
    "${rocm_flags[@]}" -cuid="$hip_cuid" vector_add.hip -o "$work/hip.o") >"$work/hip.err" 2>&1 ||
    ! "$opt_objcopy" --dump-section .hip_fatbin="$work/hip.hipfb" "$work/hip.o" "$work/hip.stripped.o"; then
    opt_ok=no opt_why+=" clang HIP: $(tail -2 "$work/hip.err")"
  elif ! same_images "$work/hip.hipfb" "$opt_bin/hip/_offload/vector_add/vector_add.hipfb"; then
    opt_ok=no opt_why+=" HIP fat binary differs from clang's"
  fi
  if ! (cd "$examples/cuda" && "$opt_clang" -x cuda -O2 -c --offload-arch=sm_70 --offload-arch=sm_90 \
    --cuda-include-ptx=sm_90 --cuda-path="$opt_cuda" -Wno-unknown-cuda-version -cuid="$cuda_cuid" \
    vector_add.cu -o "$work/cuda.o") >"$work/cuda.err" 2>&1 ||
    ! "$opt_objcopy" --dump-section .nv_fatbin="$work/cuda.fatbin" "$work/cuda.o" "$work/cuda.stripped.o"; then
    opt_ok=no opt_why+=" clang CUDA: $(tail -2 "$work/cuda.err")"
  elif ! same_images "$work/cuda.fatbin" "$opt_bin/cuda/_offload/vector_add/vector_add.fatbin"; then
    opt_ok=no opt_why+=" NVIDIA fat binary differs from clang's"
  fi
  thrust_cuid=$(opt_cuid "${opt_libs[4]}")
  if ! (cd "$examples/cuda" && "$opt_clang" -x cuda -O2 -c --offload-arch=sm_70 --offload-arch=sm_90 \
    --no-cuda-include-ptx=all --cuda-path="$opt_cuda" -Wno-unknown-cuda-version -cuid="$thrust_cuid" \
    thrust_sort_reduce.cu -o "$work/thrust.o") >"$work/thrust.err" 2>&1 ||
    ! "$opt_objcopy" --dump-section .nv_fatbin="$work/thrust.fatbin" "$work/thrust.o" "$work/thrust.stripped.o"; then
    opt_ok=no opt_why+=" clang Thrust: $(tail -2 "$work/thrust.err")"
  elif ! same_images "$work/thrust.fatbin" "$opt_bin/cuda/_offload/thrust_sort_reduce_lib/thrust_sort_reduce.fatbin"; then
    opt_ok=no opt_why+=" Thrust's NVIDIA fat binary differs from clang's"
  fi
  # RDC: compile both libraries' sources as clang would, link, compare images.
  execroot=$(bz info "${bazel_flags[@]}" -c opt execution_root 2>/dev/null)
  rdc_images=0
  for kind in hip cuda; do
    ext=$kind
    lang=(-x hip "${hip_archs[@]}" -Xarch_host -D__AMDGCN_WAVEFRONT_SIZE=64 "${rocm_flags[@]}")
    link=(--hip-link "${hip_archs[@]}" "${rocm_flags[@]}")
    if [ $kind = cuda ]; then
      ext=cu
      lang=(-x cuda --offload-arch=sm_70 --offload-arch=sm_90 --cuda-path="$opt_cuda" -Wno-unknown-cuda-version)
      link=(--offload-arch=sm_70 --offload-arch=sm_90 --cuda-path="$opt_cuda" -Wno-unknown-cuda-version)
    fi
    dir="$work/rdc_$kind"
    mkdir -p "$dir"
    objs=()
    for lib in saxpy:saxpy_rdc device_math:device_math; do
      src=${lib#*:}
      lib=${lib%%:*}
      cuid=$(opt_cuid "$opt_repo//$kind:$lib")
      (cd "$execroot" && "$opt_clang" -fgpu-rdc --offload-new-driver -O2 -c "${lang[@]}" -cuid="$cuid" \
        -iquote "${opt_src:-.}" \
        "${opt_src:+$opt_src/}$kind/$src.$ext" -o "$dir/$lib.o") >>"$dir/err" 2>&1 || opt_why+=" clang $kind $lib"
      objs+=("$lib.o")
    done
    # Only the device images matter: the host link may fail (no main, no
    # runtime) after clang-linker-wrapper has written them.
    (cd "$dir" && "$opt_clang" -fgpu-rdc --offload-new-driver -O2 "${link[@]}" "${objs[@]}" -o prog --save-temps \
      -nostartfiles -shared) >>"$dir/err" 2>&1
    ours="$opt_bin/$kind/_offload/saxpy_device_link"
    n=0
    for img in "$dir"/prog.*.img; do
      t=${img#"$dir"/prog.*.}
      t=${t%.img}
      n=$((n + 1))
      cmp -s "$img" "$ours/${t/:/_}/saxpy_device_link.img" || opt_why+=" RDC $kind $t image differs from clang's"
    done
    want=3
    [ $kind = hip ] || want=2
    [ "$n" -eq "$want" ] || opt_why+=" RDC $kind: clang linked $n images, not $want ($(tail -2 "$dir/err"))"
    rdc_images=$((rdc_images + n))
  done
  [ -z "$opt_why" ] || opt_ok=no
  if [ -n "$hip_cuid" ] && [ -n "$cuda_cuid" ] && [ -n "$thrust_cuid" ] && [ $opt_ok = yes ]; then
    ok "-c opt: the HIP and CUDA vector-add fat binaries and the Thrust example's equal $opt_clang ${opt_hip_flags[*]} -O2 -c's (.hip_fatbin, .nv_fatbin; compared: $opt_compare) at the same cuid; the $rdc_images RDC images of the two-library saxpy equal $opt_clang -fgpu-rdc -O2's"
  else
    bad "-c opt: cuids '$hip_cuid' '$cuda_cuid';$opt_why"
  fi
else
  bad "-c opt build failed: $(tail -5 "$scratch/opt.log")"
fi
