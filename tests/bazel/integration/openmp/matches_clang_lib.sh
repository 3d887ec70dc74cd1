# What matches_clang16.sh and matches_clang19.sh share, sourced by each after
# integration/lib.sh: their arguments (SOURCE... -- IMAGE...) and the
# comparison of AMDGPU images that cannot be byte for byte.

# parse_images SOURCE... -- IMAGE...: sets srcs (the sources, resolved),
# archs (the GPU targets of the images), ours (target -> our image) and
# arch_list (the targets, comma-separated, for --offload-arch).
parse_images() {
  srcs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    srcs+=("$(realpath "$1")")
    shift
  done
  shift
  archs=()
  declare -gA ours
  local img t
  for img in "$@"; do
    t=$(target_of "$img")
    case $t in sm_* | gfx*) archs+=("$t") ours[$t]=$(realpath "$img") ;; esac
  done
  [ ${#archs[@]} -gt 0 ] || fail "no GPU image among $*"
  arch_list=$(IFS=,; echo "${archs[*]}")
}

# An image's e_flags, and its defined dynamic symbols (kernels, their
# descriptors and modes, globals) as "type bind visibility name".
elf_flags() { llvm-readelf-22 -h "$1" | sed -n 's/^ *Flags: *//p'; }
dynamic_symbols() { llvm-readelf-22 --dyn-syms -W "$1" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" { print $4, $5, $6, $8 }' | sort; }

# same_flags_and_symbols TARGET THEIRS OURS WHO: fails unless the two images
# have the same e_flags and dynamic symbols, and theirs enough symbols for
# that to prove something; sets n to the count.
same_flags_and_symbols() {
  local t=$1 theirs=$2 mine=$3 who=$4
  [ "$(elf_flags "$theirs")" = "$(elf_flags "$mine")" ] ||
    fail "$t: e_flags $(elf_flags "$mine"), $who's $(elf_flags "$theirs")"
  diff <(dynamic_symbols "$theirs") <(dynamic_symbols "$mine") || fail "$t: dynamic symbols differ from $who's (< theirs, > ours)"
  n=$(dynamic_symbols "$theirs" | wc -l)
  [ "$n" -gt 2 ] || fail "$t: $who's image exports $n symbols: the comparison would prove nothing"
}
