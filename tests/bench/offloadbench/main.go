// Command offloadbench measures offload against LLVM 22's tools and cp on
// the same files, and prints a markdown table of medians, peak memory,
// ratios and whether each performance target is met. tests/bench/run.sh
// builds offload and runs it; see docs/performance.md for a measured run.
//
// It is a benchmark, not a test: nothing here runs under go test.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	scaleName := flag.String("scale", envOr("BENCH_SCALE", "full"), "full or small")
	dir := flag.String("dir", "", "work directory for inputs and outputs (default $TMPDIR/offload-bench-<scale>)")
	bin := flag.String("bin", "", "directory holding offload and its clang-offload-bundler and llvm-offload-binary links")
	reps := flag.Int("reps", 0, "timed runs per tool (default 5 full, 3 small)")
	only := flag.String("only", "", "run only cases whose name contains this")
	flag.Parse()
	sc, ok := scales[*scaleName]
	if !ok {
		fatalf("unknown scale %q (full or small)", *scaleName)
	}
	if *reps > 0 {
		sc.reps = *reps
	}
	if *bin == "" {
		fatalf("-bin is required")
	}
	if *dir == "" {
		*dir = filepath.Join(os.TempDir(), "offload-bench-"+sc.name)
	}
	b := &bench{sc: sc, dir: *dir, bin: *bin}
	if err := b.run(*only); err != nil {
		fatalf("%v", err)
	}
}

func (b *bench) run(only string) error {
	start := time.Now()
	load0 := loadAvg()
	// Outputs of one case are inputs of the next (LLVM's bundles are
	// unbundled); all of them go when the run ends.
	os.RemoveAll(filepath.Join(b.dir, "out"))
	defer os.RemoveAll(filepath.Join(b.dir, "out"))
	if err := os.MkdirAll(filepath.Join(b.dir, "out"), 0o755); err != nil {
		return err
	}
	in, err := b.prepare()
	if err != nil {
		return fmt.Errorf("preparing inputs: %w", err)
	}
	var results []result
	for _, c := range b.cases(in) {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s\n", c.name)
		r, err := b.measureCase(c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		results = append(results, r)
	}
	fmt.Print(report(b, results, load0, loadAvg(), time.Since(start)))
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "offloadbench: "+format+"\n", args...)
	os.Exit(1)
}
