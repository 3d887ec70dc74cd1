// Command offload bundles, packages, inspects and registers GPU offload
// code without an LLVM installation. It is one binary with subcommands; when
// invoked through a link named after an LLVM tool (clang-offload-bundler,
// llvm-offload-binary, ...) it behaves as that tool.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
)

// command is one subcommand. run returns the process exit status.
type command struct {
	name    string   // subcommand name: offload <name> ...
	aliases []string // program names that select the command directly
	short   string   // one line for the command list
	run     func(prog string, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// register adds a command; each subcommand file calls it from init.
func register(c *command) {
	commands[c.name] = c
}

func main() {
	cleanUpOnSignal()
	os.Exit(dispatch(os.Args, os.Stdout, os.Stderr))
}

// cleanUpOnSignal makes SIGINT and SIGTERM remove the temporary files of
// outputs being written (which can be gigabytes) before the process ends,
// with the status a shell gives a command killed by the signal.
func cleanUpOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		atomicfile.RemoveTemps()
		os.Exit(128 + int(s.(syscall.Signal)))
	}()
}

func dispatch(argv []string, stdout, stderr io.Writer) int {
	prog := filepath.Base(argv[0])
	if c := byProgramName(prog); c != nil {
		return c.run(prog, argv[1:], stdout, stderr)
	}
	if len(argv) < 2 || argv[1] == "help" || argv[1] == "-h" || argv[1] == "--help" {
		usage(stdout)
		return 0
	}
	if argv[1] == "version" || argv[1] == "--version" {
		fmt.Fprintf(stdout, "offload version %s\n", version)
		return 0
	}
	c := commands[argv[1]]
	if c == nil {
		fmt.Fprintf(stderr, "offload: unknown command %q; run 'offload help'\n", argv[1])
		return 2
	}
	return c.run(prog+" "+c.name, argv[2:], stdout, stderr)
}

// byProgramName finds the command a link name selects, ignoring a version
// suffix such as -22 so that clang-offload-bundler-22 works too.
func byProgramName(prog string) *command {
	prog = strings.TrimSuffix(prog, ".exe")
	if i := strings.LastIndexByte(prog, '-'); i > 0 && isDigits(prog[i+1:]) {
		prog = prog[:i]
	}
	for _, c := range commands {
		for _, a := range c.aliases {
			if a == prog {
				return c
			}
		}
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "offload: GPU offload bundles, packages and registration, without LLVM")
	fmt.Fprintln(w, "\nUsage: offload <command> [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].short)
	}
	fmt.Fprintln(w, "\nLinked as clang-offload-bundler, clang-offload-packager, llvm-offload-binary,")
	fmt.Fprintln(w, "llvm-offload-wrapper or clang-offload-wrapper, it behaves as that LLVM tool.")
}
