#!/usr/bin/env bash
# Installs the Debian packages the tests and examples use, when missing:
# the LLVM 22 tools (the oracle the tests compare against), clang 16 with
# lld and its OpenMP offload runtime (the runtime the wrapper tests run on),
# clang 14's tools (clang-offload-wrapper 14, the drop-in's oracle),
# clang-tools-15 (clang-linker-wrapper-15, the LLVM 15 OpenMP registration reference),
# LLVM 15's and 19's OpenMP runtimes, unpacked in /opt/libomp-N (tests/openmp),
# LLVM 19's also copied into /usr/lib/llvm-19 with lld-19 (tests/bazel's
# clang-19 OpenMP GPU programs: clang-19 finds its device runtime there),
# clang and llvm 13, 15 and 19 (with 14, 16 and 22 the readers of the
# wrapper bitcode version matrix: lib/ir, lib/wrapper, tests/openmp; clang-tools-19
# for clang-linker-wrapper-19, the legacy CUDA and HIP registration's reference),
# the GPU SDKs the examples compile against (ROCm 5.2's HIP headers, device
# libraries and runtime from Debian main, and rocPRIM, rocRAND and hipRAND,
# whose targets the library examples use; CUDA 11.8 from non-free, with
# g++-11, the host compiler Debian's nvcc looks for first: installed with
# clang-tools-14 in one apt-get, the toolkit's dependency is met by
# clang-14 instead, and nvcc then refuses to run),
# Bazel 4.2.3 with skylib and nginx (the rules' integration workspace and
# its remote cache), GNU time (the benchmark's peak-memory column) and
# xxhsum (the reference XXH3 that lib/xxh3 is checked against), clangd-22
# (tests/bazel/clangd.sh opens offload sources with the rules' compile_commands.json).
set -euo pipefail
pkgs=(clang-22 llvm-22 lld-22 clang-tools-22 clangd-22 clang-16 clang-tools-16 lld-16 libomp-16-dev clang-tools-14
      clang-13 llvm-13 llvm-14 clang-15 clang-tools-15 llvm-15 llvm-16 clang-19 llvm-19 clang-tools-19 lld-19
      libamdhip64-dev rocm-device-libs librocprim-dev librocrand-dev libhiprand-dev nvidia-cuda-toolkit g++-11
      bazel-bootstrap bazel-skylib nginx time xxhash
      bazel-bootstrap-source openjdk-17-jdk-headless)  # Bazel's remote worker, built with javac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# LLVM 15's and 19's OpenMP runtimes (tests/openmp runs their clang's
# programs on them) are unpacked, not installed: libomp-N-dev conflicts
# with libomp-16-dev.
unpack=()
for v in 15 19; do
  [ -e "/opt/libomp-$v/usr/lib/llvm-$v/lib/libomptarget.so" ] || unpack+=("$v")
done
# LLVM 19's, also in /usr/lib/llvm-19 itself (an offload_llvm_repository of
# it links its device runtime from lib/): its files under /usr/lib/llvm-19,
# which no installed package owns, copied from /opt/libomp-19, never over a
# file already there; done once ($llvm19_marker names the version).
llvm19_marker=/usr/lib/llvm-19/.libomp-19-unpacked
llvm19=no
[ -f "$llvm19_marker" ] || dpkg-query -W -f='${Status}' libomp-19-dev 2>/dev/null | grep -q "install ok installed" || llvm19=yes
[ ${#missing[@]} -eq 0 ] && [ ${#unpack[@]} -eq 0 ] && [ $llvm19 = no ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}$([ ${#unpack[@]} -eq 0 ] || echo " and LLVM ${unpack[*]}'s libomp-dev (unpacked in /opt)")$([ $llvm19 = no ] || echo " and libomp-19-dev's files in /usr/lib/llvm-19") (run as root, or apt-get install them)" >&2
  exit 1
fi

# nvidia-cuda-toolkit is in non-free (and needs contrib): add both to the
# Debian sources that lack them (deb822 .sources files and sources.list).
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && grep -q '^URIs:.*debian' "$f" || continue
  sed -i -E '/^Components:/{/non-free( |$)/!s/$/ contrib non-free/}' "$f"
done
if [ -f /etc/apt/sources.list ]; then
  sed -i -E '/^deb .*debian/{/non-free( |$)/!s/$/ contrib non-free/}' /etc/apt/sources.list
fi

[ ${#missing[@]} -eq 0 ] || echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
[ ${#missing[@]} -eq 0 ] && [ ${#unpack[@]} -eq 0 ] || apt-get update -qq
[ ${#missing[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for v in "${unpack[@]}"; do
  tmp=$(mktemp -d) && chmod 755 "$tmp" && { chown _apt "$tmp" 2>/dev/null || true; }  # apt-get download writes as _apt
  (cd "$tmp" && apt-get download -qq "libomp-$v-dev" "libomp5-$v")
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "/opt/libomp-$v"; done
  rm -rf "$tmp"
done
if [ $llvm19 = yes ]; then
  # (apt-get install libomp-19-dev would remove libomp-16-dev.)
  cp -a -n /opt/libomp-19/usr/lib/llvm-19/. /usr/lib/llvm-19/
  # (sed reads all of it: head would end zcat by SIGPIPE, a failure here.)
  zcat /opt/libomp-19/usr/share/doc/libomp5-19/changelog.Debian.gz |
    sed -n '1s/^[^(]*(\([^)]*\)).*/libomp-19-dev libomp5-19 \1 (unpacked)/p' >"$llvm19_marker"
fi
