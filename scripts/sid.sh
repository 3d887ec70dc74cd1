#!/usr/bin/env bash
# Today's stack in a Debian sid chroot: Bazel 7.7.1 (bzlmod), clang-23,
# CUDA 12.4 and ROCm 6.4 (docs/modern-stack.md). The host is Debian 12, whose
# packages are years older; sid's Bazel needs sid's libc, so it runs in a
# chroot made here with debootstrap, from the Debian mirror the host's apt
# already uses (read at run time, never written into the repository).
#
#   scripts/sid.sh [setup]            make the chroot (or reuse it), install
#                                     the packages, record their versions
#   scripts/sid.sh run [--] CMD...    run CMD in the chroot, in this checkout
#                                     (bind-mounted at the same path), with
#                                     the host's Go and Go module cache
#   scripts/sid.sh umount             undo the bind mounts
#
# run passes a clean environment: HOME=/root (the chroot's), PATH with the
# host's Go, GOMODCACHE, GOPROXY, SID=1, and KEEP and the variables named in
# SID_PASS (e.g. SID_PASS="ONLY CC").
#
# SID_ROOT (default /srv/sid) is where the chroot lives; it is a cache: kept
# between runs, rebuilt when missing or unfinished (the marker
# $SID_ROOT/.offload-ready is written last). SID_MIRROR overrides the mirror.
# Needs root, debootstrap (installed when missing) and network to the mirror.
set -euo pipefail

root=${SID_ROOT:-/srv/sid}
repo=$(cd "$(dirname "$0")/.." && pwd)
marker=$root/.offload-ready
versions=$root/etc/offload-sid-versions

# What the modern leg and the helpers that share the chroot need: Bazel 7
# (its JDK comes as a dependency), LLVM 23 (CUDA, OpenMP: libomp, and
# liboffload for libomptarget, its plugins and device runtime) and LLVM 21 (the
# clang sid's ROCm 6.4 pairs with: its hipcc), CUDA 12.4 with Thrust and
# CUB, ROCm 6.4's HIP runtime, device libraries and libraries, and what the
# tests run besides (nginx: the remote cache; the JDK and Bazel's sources:
# the remote worker).
pkgs=(bazel-bootstrap bazel-bootstrap-source default-jdk-headless
  clang-23 lld-23 llvm-23 libomp-23-dev clang-tools-23 liboffload-23-dev
  clang-21 lld-21 llvm-21 clang-tools-21
  nvidia-cuda-toolkit libthrust-dev libcub-dev
  libamdhip64-dev rocm-device-libs-21 librocprim-dev librocrand-dev libhipcub-dev
  librocblas-dev librocsparse-dev libhiprand-dev libhipsparse-dev libhipblas-dev
  ca-certificates git make g++ nginx patch procps time xz-utils zip unzip file)

# LLVM 21's OpenMP offload runtime, host (libomptarget) and GPU device
# runtime (lib/<triple>/libompdevice.a, the layout of LLVM 20 and later),
# for the OpenMP GPU programs built with clang-21. Debian lets one
# liboffload-N and one libomp-N-dev be installed at a time (each Provides
# and Conflicts liboffload-x.y / libomp-x.y-dev), and the leg needs LLVM
# 23's: these are unpacked into /usr/lib/llvm-21 instead (dpkg -x, their
# /usr/lib/llvm-21 files only, none of which a package of the list owns).
unpacked=(liboffload-21 liboffload-21-dev libomp-21-dev)
unpacked_marker=/usr/lib/llvm-21/.offload-unpacked

log() { echo "sid.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# The Debian mirror of the host's apt sources (deb822 .sources or
# sources.list), the first one that is not the security archive.
mirror() {
  if [ -n "${SID_MIRROR:-}" ]; then
    echo "$SID_MIRROR"
    return
  fi
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/{for(i=2;i<=NF;i++) if ($i ~ /debian/ && $i !~ /security/) {print $i; exit}}')
  if [ -z "$m" ]; then
    m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1=="deb" {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\// ) { if ($i ~ /debian/ && $i !~ /security/) {print $i; exit} else break }}')
  fi
  [ -n "$m" ] || die "no Debian mirror in /etc/apt/sources.list*; set SID_MIRROR"
  echo "${m%/}"
}

# retry N CMD...: network steps fail now and then on a busy mirror.
retry() {
  local n=$1 i
  shift
  for ((i = 1; i <= n; i++)); do
    "$@" && return 0
    [ "$i" -lt "$n" ] || break
    log "failed ($*), try $((i + 1)) of $n in $((i * 10))s"
    sleep $((i * 10))
  done
  return 1
}

mounted() { mountpoint -q "$1" 2>/dev/null; }

# bind SRC DST [ro]: idempotent; several sessions share the mounts. A mount
# left from an earlier run whose source is gone (a checkout deleted and cloned
# again at the same path: CI does that) still shows the old, empty directory:
# it is replaced when it is not SRC's directory itself (device and inode).
bind() {
  mkdir -p "$2"
  if mounted "$2"; then
    [ "$(stat -Lc %d:%i "$1")" != "$(stat -c %d:%i "$2")" ] || return 0
    log "replacing the stale mount $2"
    umount "$2" 2>/dev/null || umount -l "$2"
  fi
  mount --bind "$1" "$2"
  if [ "${3:-}" = ro ]; then
    mount -o remount,bind,ro "$2"
  fi
}

mount_system() { # ROOT
  bind /proc "$1/proc"
  bind /dev "$1/dev"
  bind /sys "$1/sys"
  cp -L /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
}

# Every mount under ROOT, deepest first.
mounts_under() {
  awk -v r="$1" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/self/mounts | sort -r
}

umount_all() { # ROOT
  local m
  for m in $(mounts_under "$1"); do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}

# Removes an unfinished chroot, never with anything mounted inside
# (a bind mount of /dev or the checkout would be deleted with it).
remove_root() { # DIR
  umount_all "$1"
  [ -z "$(mounts_under "$1")" ] || die "still mounted under $1: $(mounts_under "$1" | tr '\n' ' ')"
  rm -rf --one-file-system "$1"
}

in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }

# The unpacked packages: downloaded by apt, their /usr/lib/llvm-21 files
# copied into the chroot, never over a file already there; done once
# ($unpacked_marker lists their versions).
unpack() {
  [ -f "$root$unpacked_marker" ] && return
  mount_system "$root"
  local dir=/var/cache/offload-unpack
  rm -rf "$root$dir"
  mkdir -p "$root$dir/x"
  retry 3 in_root sh -c "cd $dir && apt-get download -qq ${unpacked[*]}" ||
    { in_root apt-get update -qq && retry 3 in_root sh -c "cd $dir && apt-get download -qq ${unpacked[*]}"; } ||
    die "apt-get download ${unpacked[*]} failed in $root"
  local deb
  for deb in "$root$dir"/*.deb; do
    in_root dpkg-deb -x "$dir/$(basename "$deb")" "$dir/x" || die "dpkg-deb -x $deb failed"
    in_root dpkg-deb -f "$dir/$(basename "$deb")" Package Version | paste -sd' ' | sed 's/^Package: \(.*\) Version: /\1 /; s/$/ (unpacked)/' >>"$root$dir/versions"
  done
  cp -a -n "$root$dir/x/usr/lib/llvm-21/." "$root/usr/lib/llvm-21/" || die "copying ${unpacked[*]} into /usr/lib/llvm-21 failed"
  mv "$root$dir/versions" "$root$unpacked_marker"
  rm -rf "$root$dir"
  log "unpacked ${unpacked[*]} into /usr/lib/llvm-21"
}

setup() {
  [ "$(id -u)" -eq 0 ] || die "setup needs root"
  local t0 mirror_url
  t0=$(date +%s)
  mkdir -p "$(dirname "$root")"
  exec 9>"$root.lock"
  flock 9
  mirror_url=$(mirror)
  if [ -f "$marker" ]; then
    # A chroot made by an earlier version of this list gets what it lacks.
    local missing=() p
    for p in "${pkgs[@]}"; do
      in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
      log "reusing $root (made $(cat "$marker"))"
    else
      mount_system "$root"
      log "reusing $root, adding ${missing[*]}"
      retry 3 in_root apt-get update -qq || die "apt-get update failed in $root"
      retry 3 in_root apt-get install -y -qq "${missing[@]}" >"$root.apt.log" 2>&1 ||
        die "apt-get install failed in $root; log: $root.apt.log"
      in_root apt-get clean
    fi
  else
    if [ ! -x "$root/usr/bin/apt-get" ] || [ ! -f "$root/.debootstrap-done" ]; then
      command -v debootstrap >/dev/null || retry 3 apt-get install -y -qq debootstrap >/dev/null ||
        { apt-get update -qq && retry 3 apt-get install -y -qq debootstrap >/dev/null; } ||
        die "cannot install debootstrap"
      local i
      for i in 1 2 3; do
        [ -e "$root" ] && remove_root "$root"
        log "debootstrap sid $root from $mirror_url"
        if debootstrap --variant=minbase --include=ca-certificates sid "$root" "$mirror_url" >"$root.debootstrap.log" 2>&1; then
          touch "$root/.debootstrap-done"
          break
        fi
        log "debootstrap failed (try $i of 3): $(tail -3 "$root.debootstrap.log")"
        [ "$i" -lt 3 ] || die "debootstrap failed; log: $root.debootstrap.log"
        sleep $((i * 15))
      done
    fi
    echo "deb $mirror_url sid main contrib non-free non-free-firmware" >"$root/etc/apt/sources.list"
    # The served sid Release file can be weeks old: without this apt refuses
    # it as expired.
    printf 'Acquire::Check-Valid-Until "false";\nAcquire::Retries "5";\n' >"$root/etc/apt/apt.conf.d/99offload"
    # No recommends, no documentation: a smaller, faster install.
    printf 'APT::Install-Recommends "false";\n' >>"$root/etc/apt/apt.conf.d/99offload"
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
      >"$root/etc/dpkg/dpkg.cfg.d/99offload-nodoc"
    mount_system "$root"
    log "apt-get install ${pkgs[*]}"
    retry 3 in_root apt-get update -qq || die "apt-get update failed in $root"
    retry 3 in_root apt-get install -y -qq "${pkgs[@]}" >"$root.apt.log" 2>&1 ||
      die "apt-get install failed in $root; log: $root.apt.log"
    in_root apt-get clean
    date -u +%FT%TZ >"$marker"
    log "made $root in $(($(date +%s) - t0))s"
  fi
  unpack
  # The versions this chroot got (sid moves: record, do not assume).
  { in_root dpkg-query -W -f='${Package} ${Version}\n' "${pkgs[@]}" && cat "$root$unpacked_marker"; } >"$versions.tmp" &&
    mv "$versions.tmp" "$versions"
  sed 's/^/  /' "$versions" >&2
}

run() {
  [ "$(id -u)" -eq 0 ] || die "run needs root"
  [ -f "$marker" ] || die "no chroot at $root (scripts/sid.sh setup)"
  [ "${1:-}" != -- ] || shift
  [ $# -gt 0 ] || set -- bash
  local go gomod
  go=$(command -v go 2>/dev/null || echo /usr/local/go/bin/go)
  [ -x "$go" ] || die "no Go on the host (PATH, /usr/local/go)"
  go=$(readlink -f "$go")
  local goroot
  goroot=$(cd "$(dirname "$go")/.." && pwd)
  gomod=$("$go" env GOMODCACHE)
  mkdir -p "$gomod"
  (
    flock 9
    mount_system "$root"
    # The checkout, Go and the module cache at the same paths as on the host.
    bind "$repo" "$root$repo"
    bind "$goroot" "$root$goroot" ro
    bind "$gomod" "$root$gomod"
  ) 9>"$root.lock"
  # A clean environment, plus KEEP and the variables SID_PASS names.
  local pass=() v
  for v in KEEP ${SID_PASS:-}; do
    [ -z "${!v+set}" ] || pass+=("$v=${!v}")
  done
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "${pass[@]}" \
    PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$goroot/bin" \
    GOMODCACHE="$gomod" GOCACHE=/root/.cache/go-build GOFLAGS="${GOFLAGS:-}" GOPROXY="${GOPROXY:-$("$go" env GOPROXY)}" \
    GOTOOLCHAIN=local TMPDIR=/tmp SID=1 \
    /bin/bash -c 'cd "$0" && exec "$@"' "$repo" "$@"
}

case "${1:-setup}" in
setup) setup ;;
run)
  shift
  run "$@"
  ;;
umount) umount_all "$root" ;;
*) die "usage: scripts/sid.sh [setup | run [--] CMD... | umount]" ;;
esac
