#!/usr/bin/env bash
# offload_compile_commands' program: `bazel run` it to write
# compile_commands.json (clang's JSON compilation database) from the command
# files of the offload compiles (one argument a line, the driver last).
#
#   bazel run //:compile_commands            # into the workspace
#   bazel run //:compile_commands -- DIR     # into DIR (relative: to where bazel run was started)
#
# Entries' directory is the workspace, where sources and `-iquote .` resolve;
# paths under bazel-out/ and external/ (generated headers, SDKs, external
# repositories) become absolute paths in Bazel's execution root, found from
# where the command files' runfiles point.
set -euo pipefail

manifest="@MANIFEST@"
workspace=${BUILD_WORKSPACE_DIRECTORY:-}
out_dir=${1:-$workspace}
if [ -z "$out_dir" ] || [ -z "$workspace" ]; then
  echo "offload_compile_commands: run me with bazel run" >&2
  exit 2
fi
# bazel run starts this in its runfiles tree: a relative DIR means the
# directory the user ran bazel in, as any command's relative path does.
case $out_dir in
/*) ;;
*) out_dir=${BUILD_WORKING_DIRECTORY:-$workspace}/$out_dir ;;
esac
mapfile -t commands <"$manifest"
execroot=""
if [ ${#commands[@]} -gt 0 ]; then
  real=$(readlink -f "${commands[0]}")
  execroot=${real%%/bazel-out/*}
  if [ "$execroot" = "$real" ]; then
    echo "offload_compile_commands: $real is not under an execution root's bazel-out" >&2
    exit 1
  fi
fi
mkdir -p "$out_dir"
tmp=$(mktemp "$out_dir/.compile_commands.json.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  echo "["
  if [ ${#commands[@]} -gt 0 ]; then
    # The paths come through the environment: awk -v would read escapes
    # in them. LC_ALL=C: bytes, whatever the user's locale.
    execroot="$execroot" workspace="$workspace" LC_ALL=C awk '
      BEGIN {
        execroot = ENVIRON["execroot"]; workspace = ENVIRON["workspace"]
        # JSON strings may not hold control characters raw: \u00XX each.
        for (i = 1; i < 32; i++) { c = sprintf("%c", i); ctl = ctl c; esc[c] = sprintf("\\u%04x", i) }
        ctl = "[" ctl "]"
      }
      # Literal replacement (gsub would read backslashes in "to").
      function rep(s, from, to,   out, i) {
        out = ""
        while ((i = index(s, from)) > 0) { out = out substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
        return out s
      }
      function controls(s,   out, i, c) {
        if (s !~ ctl) return s
        out = ""
        for (i = 1; i <= length(s); i++) { c = substr(s, i, 1); out = out (c in esc ? esc[c] : c) }
        return out
      }
      function json(s) { return "\"" controls(rep(rep(s, "\\", "\\\\"), "\"", "\\\"")) "\"" }
      function under_execroot(p) { return p ~ /^(bazel-out|external)\// }
      function rewrite(a,   pre, rest) {
        if (under_execroot(a)) return execroot "/" a
        if (match(a, /^-[^=]*=/)) {
          pre = substr(a, 1, RLENGTH); rest = substr(a, RLENGTH + 1)
          if (under_execroot(rest)) return pre execroot "/" rest
        }
        if (a ~ /^-[IF]/ && under_execroot(substr(a, 3))) return substr(a, 1, 2) execroot "/" substr(a, 3)
        return a
      }
      function flush(   i, s) {
        if (n == 0) return
        # The driver is the last line, the source the one before it.
        s = "  {\"directory\": " json(workspace) ", \"file\": " json(rewrite(line[n - 1])) ", \"arguments\": [" json(rewrite(line[n]))
        for (i = 1; i < n; i++) s = s ", " json(rewrite(line[i]))
        printf "%s%s]}", (entries++ ? ",\n" : ""), s
        n = 0
      }
      FNR == 1 { flush() }
      { line[++n] = $0 }
      END { flush(); if (entries) print "" }
    ' "${commands[@]}"
  fi
  echo "]"
} >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out_dir/compile_commands.json"
trap - EXIT
echo "offload_compile_commands: wrote $out_dir/compile_commands.json (${#commands[@]} entries)"
