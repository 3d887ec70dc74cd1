// Package compilecommands tests offload_compile_commands' program
// (rules/private/compile_commands.sh) without Bazel: it is run as `bazel
// run` runs it, from a runfiles tree with Bazel's environment, over
// command files laid out as in an execution root.
package compilecommands
