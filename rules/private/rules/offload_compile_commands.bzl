"""offload_compile_commands: compile_commands.json of the offload compiles under some targets, for clangd."""

_CompileCommandsInfo = provider(
    doc = "What an offload rule and its deps give editors.",
    fields = {"files": "depset of File: the compile_commands output groups (commands and the headers they read)"},
)

def _collect_impl(target, ctx):
    transitive = []
    if OutputGroupInfo in target and hasattr(target[OutputGroupInfo], "compile_commands"):
        transitive.append(target[OutputGroupInfo].compile_commands)
    for name in ["deps", "implementation_deps"]:
        for dep in getattr(ctx.rule.attr, name, []):
            if _CompileCommandsInfo in dep:
                transitive.append(dep[_CompileCommandsInfo].files)
    return [_CompileCommandsInfo(files = depset(transitive = transitive))]

_collect = aspect(
    implementation = _collect_impl,
    attr_aspects = ["deps", "implementation_deps"],
)

def _command_path(file):
    # The manifest lists commands only; the headers are there to be built.
    if not file.basename.endswith(".compile_command"):
        return None
    return file.short_path

def _offload_compile_commands_impl(ctx):
    files = depset(transitive = [t[_CompileCommandsInfo].files for t in ctx.attr.targets])
    manifest = ctx.actions.declare_file(ctx.label.name + ".commands")
    args = ctx.actions.args()
    args.set_param_file_format("multiline")
    args.add_all(files, map_each = _command_path)
    ctx.actions.write(manifest, args)
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.expand_template(
        template = ctx.file._script,
        output = script,
        substitutions = {"@MANIFEST@": manifest.short_path},
        is_executable = True,
    )
    return [DefaultInfo(
        executable = script,
        runfiles = ctx.runfiles(files = [manifest], transitive_files = files),
    )]

offload_compile_commands = rule(
    implementation = _offload_compile_commands_impl,
    doc = """`bazel run` writes compile_commands.json for clangd into the workspace.

One entry per source of every offload_library, offload_bundle and
offload_package in targets and their deps: the library's host compile with
every target named (--offload-arch=..., as clang's own multi-arch command),
or a bundle's or package's device compile for its first target, with the
exact arguments of the build. Paths of the SDKs (--cuda-path, --rocm-path),
of external repositories and of generated headers become the execution
root's absolute paths; sources and `-iquote .` stay relative to the
workspace, the entries' directory. `bazel run` builds the generated headers
the compiles read. An argument names another output directory.""",
    attrs = {
        "targets": attr.label_list(
            doc = "Targets whose offload compiles (theirs and their deps') to list: libraries, binaries.",
            aspects = [_collect],
        ),
        "_script": attr.label(
            default = Label("//rules/private:compile_commands.sh"),
            allow_single_file = True,
        ),
    },
    executable = True,
)
