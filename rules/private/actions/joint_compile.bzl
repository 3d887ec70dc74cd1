"""A source's device compiles and host compile, in one action (kinds whose device_with_host is set: OpenMP).

The action's mnemonic and its first argument keep OpenMP's name, which
execution logs and caches already know.
"""

load("//rules/private:common.bzl", "CLANG_TOOLCHAIN_TYPE", "MNEMONICS", "SUPPORTS_PATH_MAPPING", "toolchain_kwargs")

# Ends each command in the action's argument list.
_END = "--end-of-offload-command--"

# Runs the commands in "$@" one after the other, each ended by _END; stops
# at the first that fails. The arguments start with the action's name,
# which Bazel versions hand over as $0 or as $1.
_RUN_EACH = """
[ "${{1:-}}" = openmp_compile ] && shift
command=()
for arg in "$@"; do
  if [ "$arg" = "{end}" ]; then
    "${{command[@]}}" || exit
    command=()
  else
    command+=("$arg")
  fi
done
""".format(end = _END)

def emit_joint_compile(ctx, clang, src, commands):
    """Runs one source's compiles, device halves and host half, in one action.

    OpenMP's reason: clang names each target region's offload entry after the source file's
    device and inode (__omp_offloading_<device>_<inode>_<function>_l<line>,
    LLVM 16). Compiled in separate actions, the halves see different copies
    of the source wherever an executor materializes each action's inputs
    apart (remote execution), or come from a cache filled on another
    machine: the runtime then fails with "Failed to load global
    '__omp_offloading_...'". In one action they read one file and are
    cached together.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo.
      src: File, the source.
      commands: structs from device_compile_command and host_compile_command.
    """
    executable = clang.executable or clang.path
    arguments = [ctx.actions.args().add("openmp_compile")]
    for c in commands:
        arguments += [ctx.actions.args().add(executable), c.args, ctx.actions.args().add(_END)]
    ctx.actions.run_shell(
        command = _RUN_EACH,
        arguments = arguments,
        inputs = depset(transitive = [c.inputs for c in commands]),
        tools = [clang.executable] if clang.executable else [],
        outputs = [out for c in commands for out in c.outputs],
        mnemonic = MNEMONICS.openmp_compile,
        # Paths mappable only when every command's are.
        execution_requirements = SUPPORTS_PATH_MAPPING if all([c.mapping for c in commands]) else {},
        progress_message = "Compiling OpenMP %s, device and host halves (%s)" % (src.short_path, ctx.label),
        env = clang.env,
        **toolchain_kwargs(CLANG_TOOLCHAIN_TYPE)
    )
