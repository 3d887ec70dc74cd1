"""One source's compile command for editors (clangd), written as a file.

Not an action that compiles: the command line of a compile command struct
(device_compile_command, host_compile_command) is written, one argument a
line, then the driver; offload_compile_commands turns these files into a
compile_commands.json whose paths resolve from the workspace.
"""

def compile_command_file(ctx, stem):
    """Declares the file of one source's compile command (also the command's -o: no action runs it)."""
    return ctx.actions.declare_file("_offload/%s/%s.compile_command" % (ctx.label.name, stem))

def emit_compile_command(ctx, clang, command, out):
    """Writes command's arguments, one a line, and the clang driver last.

    Args:
      ctx: the rule context.
      clang: OffloadClangInfo (its driver).
      command: a struct from device_compile_command or host_compile_command
        whose output is out and whose args no action uses (its last argument
        is the source).
      out: File from compile_command_file.

    Returns:
      out.
    """
    command.args.set_param_file_format("multiline")
    command.args.add(clang.executable or clang.path)
    ctx.actions.write(out, command.args)
    return out
