package main

import (
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/hipfatbin"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:  "hipfb-object",
		short: "put a HIP fat binary in an object of its own, for a host object compiled without it",
		run:   runHIPFatbinObject,
	})
}

func runHIPFatbinObject(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "write the object defining the HIP fat binary that a host compile with -cuid=CUID and no -fcuda-include-gpubinary refers to",
		"--cuid=CUID [--triple=T] -o OUT.o FATBIN.hipfb")
	cuid := s.String("cuid", "string", "the -cuid of the source's host compile")
	triple := s.String("triple", "triple", "the host triple (default x86_64-unknown-linux-gnu)")
	out := s.String("o", "file", "output object")
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	if err := doHIPFatbinObject(s.Positional, cuid.Value(), triple.Value(), out.Value()); err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func doHIPFatbinObject(inputs []string, cuid, triple, out string) error {
	switch {
	case len(inputs) != 1:
		return fmt.Errorf("expected one HIP fat binary, got %d", len(inputs))
	case out == "":
		return fmt.Errorf("no output file: give -o")
	case triple == "":
		triple = "x86_64-unknown-linux-gnu"
	}
	machine, err := hipfatbin.Machine(triple)
	if err != nil {
		return err
	}
	in, err := os.Open(inputs[0])
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := hipfatbin.Write(f, in, fi.Size(), hipfatbin.Options{CUID: cuid, Machine: machine}); err != nil {
		return fmt.Errorf("'%s': %w", inputs[0], err)
	}
	return f.Commit()
}
