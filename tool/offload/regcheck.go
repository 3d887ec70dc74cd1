package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rules-offload/rules_offload/lib/regcheck"
	"github.com/rules-offload/rules_offload/lib/shown"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:  "regcheck",
		short: "check a registration record against the device images it registers",
		run:   runRegcheck,
	})
}

func runRegcheck(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "check what a program registers with the offload runtimes (offload_registration_test's record): "+
		"every fat binary holds the declared targets, every registered kernel and variable is in every image, "+
		"every kernel of every image is registered", "[options] RECORD")
	targets := s.List("targets", "kind=t1,t2", "a target list a library of that kind declares (repeatable)", false)
	host := s.String("host", "file", "the host program (an ELF executable): kernels it has no launch stub for may stay unregistered")
	maxSize := s.String("max-uncompressed-size", "bytes",
		"inflate at most this much from the record's compressed images, together (default 4G; K, M, G suffixes)")
	help := s.Bool("help", "Display available options")
	s.Alias("h", "help")
	if err := s.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 2
	}
	if help.On || len(s.Positional) != 1 {
		s.PrintHelp(stdout)
		if help.On {
			return 0
		}
		return 2
	}
	opt := regcheck.Options{Targets: map[string][][]string{}, LimitHint: "raise it with --max-uncompressed-size"}
	if maxSize.Given() {
		n, err := parsePositiveBytes("--max-uncompressed-size", maxSize.Value())
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return 2
		}
		opt.MaxUncompressedSize = n
	}
	for _, v := range targets.Values {
		kind, list, ok := strings.Cut(v, "=")
		if !ok || kind == "" || list == "" {
			fmt.Fprintf(stderr, "%s: --targets wants kind=t1,t2, got %q\n", prog, v)
			return 2
		}
		opt.Targets[kind] = append(opt.Targets[kind], strings.Split(list, ","))
	}
	if host.Given() {
		kernels, err := hostKernels(host.Value())
		if err != nil {
			fmt.Fprintf(stderr, "%s: error: %s: %v\n", prog, host.Value(), err)
			return 1
		}
		opt.Host = kernels
	}
	path := s.Positional[0]
	rep, err := check(path, opt)
	if err != nil {
		// The error may quote the record's bytes (an image's own error):
		// printed escaped, as the report's names are.
		fmt.Fprintf(stderr, "%s: error: %s: %s\n", prog, path, shown.Name(err.Error()))
		return 1
	}
	rep.Write(stdout)
	if !rep.OK() {
		fmt.Fprintf(stdout, "FAILED: %d problem(s) in %s\n", rep.Count(), path)
		return 1
	}
	fmt.Fprintln(stdout, "PASSED")
	return 0
}

func check(path string, opt regcheck.Options) (*regcheck.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rec, err := regcheck.Parse(f, st.Size())
	if err != nil {
		return nil, err
	}
	return regcheck.Check(rec, opt)
}

func hostKernels(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return regcheck.HostKernels(f, st.Size())
}
