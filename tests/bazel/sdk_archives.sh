# SDKs from archives only (sourced by run.sh after hermetic.sh; uses its
# user workspace, user_bz, declare_sdks, ok, bad, bazel_flags and scratch):
#   H6 a fresh output base whose LLVM and CUDA both come from archives with
#      sha256: LLVM 22 from a tarball of this machine's clang, lld, LLVM's
#      shared libraries and the resource directory; CUDA from NVIDIA's
#      redistributable form (a redistrib_<version>.json manifest over one
#      archive per component, laid out as NVIDIA lays them out). The HIP and
#      CUDA examples built from them equal, file for file, the ones built
#      from the machine's SDKs (H4);
#   H7 a component the manifest does not list fails with the ones it has;
#   H8 a library whose component is not among redist_components (libcublas)
#      fails at analysis time, naming the component to add.

# The machine's outputs (H4's output base; cached, nothing runs).
declare_sdks
example_targets=(//hip/... //cuda/...)
digest_outputs() { # BAZEL_BIN: sha256 and path of each device image, object, archive and program
  (cd "$1" && find hip cuda -type f ! -name '*.runfiles_manifest' ! -name 'MANIFEST' ! -name '*.params' \
    ! -path '*.runfiles/*' ! -name '*.sh' -print0 | sort -z | xargs -0 sha256sum)
}
if user_bz build "${bazel_flags[@]}" "${example_targets[@]}" >"$scratch/h6_local.log" 2>&1; then
  digest_outputs "$(user_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)" >"$scratch/h6_local.sums"
else
  bad "H6: the examples with the machine's SDKs: $(grep -m3 -E 'ERROR|error' "$scratch/h6_local.log")"
fi
user_bz shutdown >/dev/null 2>&1

# LLVM 22 as a relocatable tree: clang finds its libraries through
# RUNPATH $ORIGIN/../lib and runs lld from its own directory.
llvm_tree="$scratch/llvm_tree/llvm-22"
mkdir -p "$llvm_tree/bin" "$llvm_tree/lib/clang"
llvm_bin=$(dirname "$(readlink -f "$(command -v clang-22)")")
for t in clang lld clang-linker-wrapper clang-nvlink-wrapper llvm-link; do
  cp -L "$llvm_bin/$t" "$llvm_tree/bin/"
done
ln -s lld "$llvm_tree/bin/ld.lld"
for lib in $(ldd "$llvm_bin/clang" "$llvm_bin/lld" | awk '$1 ~ /^lib(LLVM|clang)/ {print $3}' | sort -u); do
  cp -L "$lib" "$llvm_tree/lib/"
done
cp -rL "$llvm_bin/../lib/clang/22" "$llvm_tree/lib/clang/"
tar -C "$scratch/llvm_tree" -cf "$scratch/llvm-22.tar" llvm-22
llvm_sum=$(sha256sum "$scratch/llvm-22.tar" | cut -d' ' -f1)

# CUDA as NVIDIA's components: cuda_nvcc (ptxas, fatbinary, nvlink,
# libdevice, crt/), libcurand, libcublas and libcufft (their headers and
# libraries), cuda_cccl (Thrust, CUB, libcu++) and cuda_cudart (the other
# headers, the runtime libraries in lib/), each one directory named like
# its archive, listed with sha256 in a manifest. The libraries' components
# are plain tar (xz would take minutes over their 1 GB).
redist="$scratch/redist"
component() { # NAME VERSION: the directory of that component's archive
  echo "$redist/stage/$1-linux-x86_64-$2-archive"
}
nvcc=$(component cuda_nvcc 11.8.89) curand=$(component libcurand 10.3.0.86) cudart=$(component cuda_cudart 11.8.89)
cublas=$(component libcublas 11.11.3.6) cufft=$(component libcufft 10.9.0.58) cccl=$(component cuda_cccl 11.8.89)
mkdir -p "$nvcc/bin" "$nvcc/nvvm/libdevice" "$nvcc/include" "$cudart/include" "$cudart/lib"
for dir in "$curand" "$cublas" "$cufft" "$cccl"; do mkdir -p "$dir/include" "$dir/lib"; done
for t in ptxas fatbinary nvlink; do cp -L "$(command -v $t)" "$nvcc/bin/"; done
cp -L /usr/lib/cuda/nvvm/libdevice/*.bc "$nvcc/nvvm/libdevice/"
dpkg-query -L nvidia-cuda-dev | grep '^/usr/include/' | while read -r h; do
  [ -f "$h" ] || continue
  rel=${h#/usr/include/}
  case $rel in
  crt/*) dest=$nvcc ;;
  curand*) dest=$curand ;;
  cublas*) dest=$cublas ;;
  cufft* | cudalibxt.h) dest=$cufft ;;
  *) dest=$cudart ;;
  esac
  mkdir -p "$dest/include/$(dirname "$rel")" && cp -L "$h" "$dest/include/$rel"
done
cp -L /usr/lib/x86_64-linux-gnu/libcudart_static.a /usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89 "$cudart/lib/"
ln -s libcudart.so.11.8.89 "$cudart/lib/libcudart.so.11.0"
ln -s libcudart.so.11.0 "$cudart/lib/libcudart.so"
dpkg-query -L libthrust-dev libcub-dev libcu++-dev | grep '^/usr/include/' | while read -r h; do
  [ -f "$h" ] || continue
  rel=${h#/usr/include/}
  mkdir -p "$cccl/include/$(dirname "$rel")" && cp -L "$h" "$cccl/include/$rel"
done
library_files() { # DIR NAME...: each library's real file and its two links, as NVIDIA ships them
  local dir=$1 name real soname
  shift
  for name in "$@"; do
    real=$(readlink -f "/usr/lib/x86_64-linux-gnu/$name.so")
    soname=$(readlink "/usr/lib/x86_64-linux-gnu/$name.so")
    cp "$real" "$dir/lib/"
    ln -s "$(basename "$real")" "$dir/lib/$soname"
    ln -s "$soname" "$dir/lib/$name.so"
  done
}
library_files "$curand" libcurand
library_files "$cublas" libcublas libcublasLt
library_files "$cufft" libcufft libcufftw
manifest="{\"release_label\": \"11.8.0\""
for dir in "$nvcc" "$curand" "$cudart" "$cublas" "$cufft" "$cccl"; do
  base=$(basename "$dir") name=${base%%-linux-x86_64-*}
  mkdir -p "$redist/$name/linux-x86_64"
  case $name in
  lib*) archive=$base.tar && tar -C "$redist/stage" -cf "$redist/$name/linux-x86_64/$archive" "$base" ;;
  *) archive=$base.tar.xz && tar -C "$redist/stage" -cJf "$redist/$name/linux-x86_64/$archive" "$base" ;;
  esac
  sum=$(sha256sum "$redist/$name/linux-x86_64/$archive" | cut -d' ' -f1)
  manifest+=", \"$name\": {\"name\": \"$name\", \"linux-x86_64\": {\"relative_path\": \"$name/linux-x86_64/$archive\", \"sha256\": \"$sum\"}}"
done
rm -rf "$redist/stage"
echo "$manifest}" >"$redist/redistrib_11.8.0.json"
manifest_sum=$(sha256sum "$redist/redistrib_11.8.0.json" | cut -d' ' -f1)

sdk_archives_ws() { # COMPONENTS...: LLVM and CUDA from the archives above
  declare_sdks 'load("@rules_offload//rules:repositories.bzl", "offload_cuda_repository")' \
    "offload_llvm_repository(name = \"offload_llvm\", urls = [\"file://$scratch/llvm-22.tar\"], sha256 = \"$llvm_sum\", strip_prefix = \"llvm-22\")" \
    "offload_cuda_repository(name = \"offload_cuda\", redist_json = \"file://$redist/redistrib_11.8.0.json\", redist_json_sha256 = \"$manifest_sum\", redist_components = [$(printf '"%s", ' "$@")])"
}
archive_bz() { (cd "$user" && bazel --output_base="$scratch/ob_archives" "$@"); }
sdk_archives_ws cuda_cccl cuda_cudart cuda_nvcc libcublas libcufft libcurand
if archive_bz build "${bazel_flags[@]}" "${example_targets[@]}" >"$scratch/h6.log" 2>&1; then
  ext="$scratch/ob_archives/external"
  clang_from=$(readlink "$ext/offload_llvm/bin/clang") ptxas_from=$(readlink "$ext/offload_cuda/bin/ptxas")
  libllvm_from=$(readlink "$ext/offload_llvm/lib/libLLVM.so.22.1")
  digest_outputs "$(archive_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)" >"$scratch/h6_archives.sums"
  n=$(wc -l <"$scratch/h6_local.sums")
  if [[ $clang_from == "$ext/offload_llvm/_archive/"* && $libllvm_from == "$ext/offload_llvm/_archive/"* &&
    $ptxas_from == "$ext/offload_cuda/_redist/tree/"* ]] && [ "$n" -gt 20 ] &&
    cmp -s "$scratch/h6_local.sums" "$scratch/h6_archives.sums"; then
    ok "LLVM 22 from a tarball and CUDA from NVIDIA-style component archives (manifest, sha256; cuda_cccl, libcublas, libcufft, libcurand among them): all $n HIP and CUDA example outputs equal the machine's SDKs' builds"
  else
    bad "SDK archives: clang from '$clang_from', libLLVM from '$libllvm_from', ptxas from '$ptxas_from'; outputs: $(diff "$scratch/h6_local.sums" "$scratch/h6_archives.sums" | head -4 | tr '\n' ' ')"
  fi
else
  bad "build with LLVM and CUDA from archives: $(grep -m5 -E 'ERROR|error' "$scratch/h6.log")"
fi

# H7
sdk_archives_ws cuda_cudart cuda_nvcc cuda_nvrtc
if archive_bz build "${bazel_flags[@]}" //cuda:saxpy_cubin >"$scratch/h7.log" 2>&1; then
  bad "a CUDA component missing from the manifest was accepted"
elif grep -q "lists no component cuda_nvrtc; it has cuda_cccl, cuda_cudart, cuda_nvcc, libcublas, libcufft, libcurand" "$scratch/h7.log"; then
  ok "a component the manifest lacks fails with the components it has"
else
  bad "missing component failed for another reason: $(grep -m3 ERROR "$scratch/h7.log")"
fi

# H8
sdk_archives_ws cuda_cccl cuda_cudart cuda_nvcc libcurand
if archive_bz build "${bazel_flags[@]}" //cuda:cublas_sgemm >"$scratch/h8.log" 2>&1; then
  bad "cuBLAS built from components without libcublas"
elif grep -q 'has no cublas (missing: include/cublas.h, .*add "libcublas" to redist_components' "$scratch/h8.log"; then
  ok "a library whose component was not fetched fails at analysis: $(grep -o 'has no cublas (missing: [^)]*)' "$scratch/h8.log" | head -1)"
else
  bad "missing libcublas failed for another reason: $(grep -m3 ERROR "$scratch/h8.log")"
fi
declare_sdks
archive_bz shutdown >/dev/null 2>&1
