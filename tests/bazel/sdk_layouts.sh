# The CUDA layouts of 2026 on real files (sourced by run.sh after
# sdk_archives.sh; uses its user workspace, user_bz, declare_sdks, ok, bad,
# bazel_flags and scratch). CUDA 13 and its pip wheels do not install on
# Debian 12, so the trees are laid out with the names recorded on a CUDA
# 13.0 machine (shared/fixtures/cuda13/tools/layout.txt, tests/starlark's
# testdata) over Debian 12's CUDA 11.8 files (links to them: the contents,
# and so cuda.h's version, are 11.8's):
#   H9  a CUDA 13 toolkit as NVIDIA installs it: cuda -> cuda-13.0, include
#       and lib64 links into targets/x86_64-linux/{include,lib}, Thrust, CUB,
#       libcu++ and nv/ in include/cccl. The Thrust and cuBLAS programs build,
#       pass their registration tests, and every output equals the machine's
#       SDK's build (H4's workspace) file for file;
#   H10 CUDA from pip wheels in CUDA 12's per-component layout
#       (site-packages/nvidia/{cuda_runtime,cuda_nvcc,cuda_cccl,cublas}/...,
#       each library under its soname only, no static archives): Thrust and
#       cuBLAS programs with runtime = "shared" build and pass their
#       registration tests; cuFFT, whose wheel is not there, fails at
#       analysis naming the pip package.

layouts_targets=(//cuda:thrust_sort_reduce_registration_test //cuda:cublas_sgemm_registration_test)
layouts_sums() { # BAZEL_BIN: sha256 and path of what the two tests built (device images, fat binaries, objects, archives)
  (cd "$1" && find cuda -type f ! -name '*.runfiles_manifest' ! -name 'MANIFEST' ! -name '*.params' \
    ! -path '*.runfiles/*' ! -name '*.sh' ! -name '*.record' -print0 | sort -z | xargs -0 sha256sum)
}
# The machine's CUDA builds in an output base of its own, as each layout
# does below: the user workspace's bazel-bin also holds what earlier checks
# built there (other targets of //cuda), which a fresh output base lacks.
declare_sdks
local_bz() { (cd "$user" && bazel --output_base="$scratch/ob_layouts_local" "$@"); }
if local_bz test "${bazel_flags[@]}" "${layouts_targets[@]}" >"$scratch/h9_local.log" 2>&1; then
  layouts_sums "$(local_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)" >"$scratch/h9_local.sums"
else
  bad "H9: the Thrust and cuBLAS programs with the machine's CUDA: $(grep -m3 -E 'ERROR|error' "$scratch/h9_local.log")"
fi
local_bz shutdown >/dev/null 2>&1

# Debian 12's CUDA 11.8 files: its headers (nvidia-cuda-dev), CCCL's
# (libthrust-dev, libcub-dev, libcu++-dev), tools, libdevice, libraries.
cuda_headers() { # PACKAGE...: the /usr/include files the packages own
  dpkg-query -L "$@" | grep '^/usr/include/' | while read -r h; do [ -f "$h" ] && echo "$h"; done
}
link_into() { # DIR: links each /usr/include file read from stdin under DIR, by its path below /usr/include
  while read -r h; do
    rel=${h#/usr/include/}
    mkdir -p "$1/$(dirname "$rel")" && ln -sf "$(readlink -f "$h")" "$1/$rel"
  done
}
debian_lib() { # NAME: the real file of /usr/lib/x86_64-linux-gnu/NAME.so and its soname
  local real
  real=$(readlink -f "/usr/lib/x86_64-linux-gnu/$1.so")
  echo "$real $(readlink "/usr/lib/x86_64-linux-gnu/$1.so")"
}

# H9: /usr/local/cuda of CUDA 13.0's layout.
c13="$scratch/layouts/usr/local"
top="$c13/cuda-13.0"
mkdir -p "$top/targets/x86_64-linux/include/cccl" "$top/targets/x86_64-linux/lib" "$top/bin" "$top/nvvm"
cuda_headers nvidia-cuda-dev | link_into "$top/targets/x86_64-linux/include"
cuda_headers libthrust-dev libcub-dev libcu++-dev | link_into "$top/targets/x86_64-linux/include/cccl"
ln -s targets/x86_64-linux/include "$top/include"
ln -s targets/x86_64-linux/lib "$top/lib64"
ln -s cuda-13.0 "$c13/cuda"
for t in ptxas fatbinary nvlink; do ln -s "$(readlink -f "$(command -v $t)")" "$top/bin/$t"; done
ln -s "$(readlink -f /usr/lib/cuda/nvvm/libdevice)" "$top/nvvm/libdevice"
ln -s /usr/lib/x86_64-linux-gnu/libcudart_static.a "$top/targets/x86_64-linux/lib/libcudart_static.a"
for lib in libcudart libcublas libcublasLt; do
  read -r real soname <<<"$(debian_lib $lib)"
  ln -s "$real" "$top/targets/x86_64-linux/lib/$(basename "$real")"
  ln -s "$(basename "$real")" "$top/targets/x86_64-linux/lib/$soname"
  ln -s "$soname" "$top/targets/x86_64-linux/lib/$lib.so"
done
declare_sdks 'load("@rules_offload//rules:repositories.bzl", "offload_cuda_repository")' \
  "offload_cuda_repository(name = \"offload_cuda\", path = \"$c13/cuda\")"
layout_bz() { (cd "$user" && bazel --output_base="$scratch/ob_layouts" "$@"); }
if layout_bz test "${bazel_flags[@]}" "${layouts_targets[@]}" >"$scratch/h9.log" 2>&1; then
  ext="$scratch/ob_layouts/external/offload_cuda"
  thrust_from=$(readlink "$ext/include/thrust")
  layouts_sums "$(layout_bz info "${bazel_flags[@]}" bazel-bin 2>/dev/null)" >"$scratch/h9.sums"
  n=$(wc -l <"$scratch/h9.sums")
  if [[ $thrust_from == "$top/targets/x86_64-linux/include/cccl/thrust" ]] && [ "$n" -gt 10 ] &&
    cmp -s "$scratch/h9_local.sums" "$scratch/h9.sums"; then
    ok "CUDA 13's layout (cuda -> cuda-13.0, targets/x86_64-linux, Thrust/CUB/libcu++ in include/cccl; 11.8's files): the Thrust and cuBLAS programs pass their registration tests and all $n outputs equal the machine's CUDA's"
  else
    bad "CUDA 13 layout: include/thrust from '$thrust_from'; outputs: $(diff "$scratch/h9_local.sums" "$scratch/h9.sums" | head -4 | tr '\n' ' ')"
  fi
else
  bad "CUDA 13 layout: $(grep -m5 -E 'ERROR|error|FAIL' "$scratch/h9.log")"
fi
layout_bz shutdown >/dev/null 2>&1

# H10: CUDA 12's wheels, one directory per component under nvidia/.
nv="$scratch/layouts/site-packages/nvidia"
mkdir -p "$nv/cuda_runtime/include" "$nv/cuda_runtime/lib" "$nv/cuda_nvcc/bin" "$nv/cuda_nvcc/nvvm" \
  "$nv/cuda_nvcc/include" "$nv/cuda_cccl/include" "$nv/cublas/include" "$nv/cublas/lib" "$nv/cudnn/include"
# (cuFFT's headers are its wheel's, which is not installed here.)
cuda_headers nvidia-cuda-dev | grep -v -e '/usr/include/crt/' -e '/usr/include/cublas' -e '/usr/include/cufft' \
  -e '/usr/include/cudalibxt.h' | link_into "$nv/cuda_runtime/include"
cuda_headers nvidia-cuda-dev | grep -e '/usr/include/crt/' | link_into "$nv/cuda_nvcc/include"
cuda_headers nvidia-cuda-dev | grep -e '/usr/include/cublas' | link_into "$nv/cublas/include"
cuda_headers libthrust-dev libcub-dev libcu++-dev | link_into "$nv/cuda_cccl/include"
for t in ptxas fatbinary nvlink; do ln -s "$(readlink -f "$(command -v $t)")" "$nv/cuda_nvcc/bin/$t"; done
ln -s "$(readlink -f /usr/lib/cuda/nvvm/libdevice)" "$nv/cuda_nvcc/nvvm/libdevice"
touch "$nv/cudnn/include/cudnn.h"
for entry in cuda_runtime:libcudart cublas:libcublas cublas:libcublasLt; do
  read -r real soname <<<"$(debian_lib "${entry#*:}")"
  ln -s "$real" "$nv/${entry%%:*}/lib/$soname" # the wheels ship the soname alone
done
mkdir -p "$user/pip"
cp "$user/cuda/thrust_sort_reduce.cu" "$user/cuda/cublas_sgemm.cu" "$user/pip/"
cat >"$user/pip/BUILD.bazel" <<'EOF'
load("@rules_cc//cc:defs.bzl", "cc_binary")
load("@rules_offload//rules:defs.bzl", "cuda_library", "offload_registration_test")

# The wheels have no libcudart_static.a: the shared runtime.
[
    [
        cuda_library(
            name = name + "_lib",
            srcs = [name + ".cu"],
            runtime = "shared",
            targets = ["sm_70", "sm_90"],
            deps = [library],
        ),
        cc_binary(name = name, deps = [":%s_lib" % name]),
        offload_registration_test(name = name + "_registration_test", size = "small", binary = ":" + name),
    ]
    for name, library in [
        ("cublas_sgemm", "@offload_cuda//:cublas"),
        ("thrust_sort_reduce", "@offload_cuda//:thrust"),
    ]
]

cc_binary(name = "uses_cufft", srcs = ["uses_cufft.cc"], deps = ["@offload_cuda//:cufft"])
EOF
echo 'int main() { return 0; }' >"$user/pip/uses_cufft.cc"
declare_sdks 'load("@rules_offload//rules:repositories.bzl", "offload_cuda_repository")' \
  "offload_cuda_repository(name = \"offload_cuda\", site_packages = \"$(dirname "$nv")\")"
if layout_bz test "${bazel_flags[@]}" //pip:cublas_sgemm_registration_test //pip:thrust_sort_reduce_registration_test \
  >"$scratch/h10.log" 2>&1; then
  ext="$scratch/ob_layouts/external/offload_cuda"
  if [ -e "$ext/lib64/libcublas.so.11" ] && [ ! -e "$ext/lib64/libcudart_static.a" ] && [ ! -e "$ext/include/cudnn.h" ]; then
    ok "CUDA 12's pip wheels (per-component nvidia/ directories, sonames only; 11.8's files): Thrust and cuBLAS programs with the shared runtime pass their registration tests; cuDNN's wheel stays out"
  else
    bad "pip wheels: the repository's lib64 and include: $(ls "$ext/lib64" | tr '\n' ' ') cudnn.h: $(ls "$ext/include/cudnn.h" 2>&1)"
  fi
else
  bad "pip wheels: $(grep -m5 -E 'ERROR|error|FAIL' "$scratch/h10.log")"
fi
if layout_bz build "${bazel_flags[@]}" //pip:uses_cufft >"$scratch/h10b.log" 2>&1; then
  bad "cuFFT built from pip wheels without nvidia-cufft-cu12"
elif grep -q 'has no cufft (missing: include/cufft.h, libcufft.so); pip install nvidia-cufft-cu12' "$scratch/h10b.log"; then
  ok "a library whose wheel is missing fails at analysis naming it: $(grep -o 'has no cufft[^;]*; pip install [a-z0-9-]*' "$scratch/h10b.log" | head -1)"
else
  bad "missing cuFFT wheel failed for another reason: $(grep -m3 ERROR "$scratch/h10b.log")"
fi
rm -rf "$user/pip"
declare_sdks
layout_bz shutdown >/dev/null 2>&1
