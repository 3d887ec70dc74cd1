# Check 7 of the bzlmod leg (sourced by run.sh; uses its ok, bad, bz,
# scratch, root and ws): tests/bazel/opt.sh's -c opt check with clang-23,
# CUDA 12.4 and ROCm 6.4 as the reference. Under -c opt the rules' device
# code must be what clang++-23's own single command makes at -O2 from the
# same source and cuid: the HIP and CUDA vector-add fat binaries, Thrust's,
# and the relocatable saxpy's linked images.
#
# The reference build is told where sid keeps ROCm 6.4 (HIP under /usr, the
# device libraries inside LLVM 21's resource directory, where
# @offload_rocm finds them) and gets the rules' compatibility header for
# clang 23 (rules/private/hip_wrapper_decls.h), which clang-23 needs with
# ROCm 6.4's headers whoever compiles. The containers are compared whole:
# HIP's as the new offload driver writes them (clang 23's default), CUDA's
# as fatbinary 12.4 writes them (offload fatbin --cuda-version=12.4, which
# the rules pass for this SDK).
bazel_flags=()
opt_clang=clang++-23
opt_objcopy=llvm-objcopy-23
opt_repo=""
opt_src=""
opt_examples=$ws
opt_cuda=/usr/lib/cuda
opt_rocm_flags=(--rocm-path=/usr --hip-path=/usr
  --rocm-device-lib-path="$(ls -d /usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode 2>/dev/null | sort -V | tail -1)"
  -include "$root/rules/private/hip_wrapper_decls.h")
opt_hip_flags=()
opt_compare=container
source "$root/tests/bazel/opt.sh"
