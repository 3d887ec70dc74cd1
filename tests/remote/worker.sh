#!/usr/bin/env bash
# Bazel's own remote-execution worker (the Remote Execution API server of
# Bazel's integration tests), built from Debian's bazel-bootstrap-source,
# serving on a loopback port in a private mount namespace where the GPU
# SDKs do not exist: LLVM 22, ROCm's headers, device libraries and runtime,
# CUDA's toolkit, headers and runtime are covered by empty mounts. An action
# that reads an SDK file it did not declare fails on this worker.
#
# Left visible, as out of scope: the host C/C++ toolchain and system headers
# (Bazel's auto-configured cc toolchain is not hermetic), and LLVM 16, the
# OpenMP example's host C++ compiler (CC=clang-16) and the runtime its tests
# run with; but not LLVM 16's OpenMP device runtime (libomptarget-nvptx-*.bc,
# libomptarget-amdgpu-*.bc, libomptarget.devicertl.a), which only device
# compiles and links read: they must have it as declared inputs.
#
#   worker.sh up DIR    build the worker, start it; prints its grpc:// address
#   worker.sh down DIR  stop it (by the PID in DIR/worker.pid)
#
# DIR holds the classes, the worker's CAS and work directories and its log.
set -euo pipefail

src=/usr/src/bazel-bootstrap/src/tools/remote/src/main/java
server_jar=/usr/share/bazel/A-server.jar
# Bazel 7's Debian package links its server against Debian's own jars
# (gRPC, Netty, Flogger...), listed in this file, instead of bundling them.
deps_list=/usr/share/bazel/bazel_classpath_debian_depends.txt
classpath=$server_jar
[ -f "$deps_list" ] && classpath+=:$(tr -s ' \n' '::' <"$deps_list" | sed 's/:$//')
# Bazel 7's worker also imports the Java runfiles library, a source
# directory of Bazel's there.
runfiles_src=/usr/src/bazel-bootstrap/tools/java/runfiles

# The SDKs' directories and files on this machine (Debian's packages).
# Thrust, CUB and libcu++ (Debian's libthrust-dev, libcub-dev, libcu++-dev)
# and ROCm's libraries' headers too: compiles must read the SDK
# repositories' declared copies.
# LLVM 21 and 23 and ROCm's other headers are Debian sid's (the bzlmod leg);
# paths this machine lacks are skipped.
sdk_dirs=(/usr/lib/llvm-21 /usr/lib/llvm-22 /usr/lib/llvm-23 /usr/include/hip /usr/lib/x86_64-linux-gnu/amdgcn /usr/share/hip
  /usr/lib/cuda /usr/lib/nvidia-cuda-toolkit
  /usr/include/{thrust,cub,cuda,nv,rocprim,rocrand,hiprand,rocsparse,hipsparse,hipcub,rocblas,hipblas})
sdk_files() {
  local f
  for f in /usr/lib/x86_64-linux-gnu/{libLLVM.so.2[123]*,libLLVM-2[123].so,libclang-cpp.so.2[123]*,libLLVMOffload*,libamdhip64.so*,libcudart*} \
    /usr/lib/x86_64-linux-gnu/{libcublas,libcufft,libcurand,libcusparse,libcusolver,libnvrtc,libnvptxcompiler,libculibos,libmetis_static,liblapack_static}* \
    /usr/lib/x86_64-linux-gnu/{librocrand,libhiprand,librocsparse,libhipsparse,librocblas,libhipblas}* \
    /usr/bin/{ptxas,fatbinary,nvlink,nvcc,cuobjdump,nvdisasm} \
    /usr/lib/llvm-16/lib/{libomptarget-nvptx-*.bc,libomptarget-amdgpu-*.bc,libomptarget.devicertl.a}; do
    [ -e "$f" ] && readlink -f "$f"
  done
  dpkg-query -L nvidia-cuda-dev 2>/dev/null | grep '^/usr/include/' | while read -r f; do
    [ -f "$f" ] && echo "$f"
  done
  return 0
}

build() { # DIR: compile the worker into DIR/classes
  [ -d "$src" ] || {
    echo "worker.sh: no $src (apt-get install bazel-bootstrap-source)" >&2
    exit 1
  }
  rm -rf "$1/classes" && mkdir -p "$1/classes"
  local srcs=("$src")
  grep -rqs 'devtools.build.runfiles' "$src" && srcs+=("$runfiles_src")
  find "${srcs[@]}" -name '*.java' ! -path '*/testing/*' -print0 | xargs -0 javac -nowarn -proc:none -d "$1/classes" -cp "$classpath" 2>"$1/javac.log" || {
    cat "$1/javac.log" >&2
    exit 1
  }
}

# The mounts, as a script the namespace runs before the worker starts.
hide_script() { # DIR
  local d f
  echo "set -e"
  # Files first: some lie in the directories (LLVM's libraries behind
  # their /usr/lib/x86_64-linux-gnu links), which are empty afterwards.
  sdk_files | sort -u | while read -r f; do
    echo "mount --bind '$1/empty_file' '$f'"
  done
  for d in "${sdk_dirs[@]}"; do
    if [ -d "$d" ]; then
      echo "mount --bind '$1/empty_dir' '$d'"
    fi
  done
}

up() {
  local dir=$1 port pid
  # Bazel 7's worker looks up a runfile it needs on macOS only (xcode-locator)
  # and fails to start without a runfiles directory: an empty one.
  mkdir -p "$dir/cas" "$dir/work" "$dir/empty_dir" "$dir/runfiles"
  : >"$dir/empty_file"
  build "$dir"
  hide_script "$dir" >"$dir/hide.sh"
  # In a chroot (the sid leg) "/" is no mount point, so unshare cannot make
  # it private; the hiding mounts stay in the namespace anyway when the
  # mount holding the chroot is private on the host, which the caller
  # states (tests/bzlmod/run.sh reads it with findmnt before entering).
  local propagation=private
  if ! mountpoint -q /; then
    if [ "${WORKER_CHROOT_PROPAGATION:-}" != private ]; then
      echo "worker.sh: in a chroot whose mount is not known to be private (WORKER_CHROOT_PROPAGATION=${WORKER_CHROOT_PROPAGATION:-unset}): the hiding mounts could reach the host" >&2
      exit 1
    fi
    propagation=unchanged
  fi
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    unshare --mount --propagation "$propagation" -- sh -c ". '$dir/hide.sh' && RUNFILES_DIR='$dir/runfiles' exec java -cp '$dir/classes:$classpath' \
      com.google.devtools.build.remote.worker.RemoteWorker --listen_port=$port \
      --work_path='$dir/work' --cas_path='$dir/cas' --jobs=2" >"$dir/worker.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/worker.pid"
    for _ in $(seq 1 120); do
      if ! kill -0 "$pid" 2>/dev/null; then
        break
      fi
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "grpc://127.0.0.1:$port"
        return 0
      fi
      sleep 0.5
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  echo "worker.sh: the worker did not start; $dir/worker.log:" >&2
  tail -20 "$dir/worker.log" >&2
  exit 1
}

down() {
  local pid
  pid=$(cat "$1/worker.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
up) up "${2:?worker.sh up DIR}" ;;
down) down "${2:?worker.sh down DIR}" ;;
*)
  echo "usage: worker.sh up|down DIR" >&2
  exit 2
  ;;
esac
