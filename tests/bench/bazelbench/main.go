// Command bazelbench measures what per-(source × target) actions buy at the
// Bazel level: a generated workspace of S sources (HIP for AMD targets,
// CUDA for NVIDIA ones) built by rules_offload and by one multi-arch clang
// action per source, side by side, then from a remote cache and a remote
// executor. It prints a markdown report and draws an SVG chart. A
// benchmark, not a test: run it with tests/bench/bazel.sh (make bench-bazel).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

type config struct {
	dir, root, offload, worker, svg string
	sources, many, jobs             int
	amd, nvidia                     []string
	curve                           []int
}

func main() {
	var c config
	var amd, nvidia, curve string
	flag.StringVar(&c.dir, "dir", "", "work directory (the workspace, output bases, logs)")
	flag.StringVar(&c.root, "root", ".", "the rules_offload checkout")
	flag.StringVar(&c.offload, "offload", "", "the offload binary, with clang-offload-bundler linked beside it")
	flag.StringVar(&c.worker, "worker", "", "tests/remote/worker.sh, for the remote cache and executor; empty: skip")
	flag.StringVar(&c.svg, "svg", "", "where to write the chart (default DIR/bazel-bench.svg)")
	flag.IntVar(&c.sources, "sources", 12, "S, the number of sources")
	flag.IntVar(&c.many, "many", 1000, "offload targets for the analysis measurement")
	flag.IntVar(&c.jobs, "jobs", 2, "bazel --jobs")
	flag.StringVar(&amd, "amd", "gfx906,gfx90a,gfx1030,gfx908,gfx900,gfx1010,gfx803", "AMD targets, in the order they are added")
	flag.StringVar(&nvidia, "nvidia", "sm_70,sm_80", "NVIDIA targets, for every build")
	flag.StringVar(&curve, "curve", "1,3,6", "how many AMD targets each measured point builds (ascending)")
	flag.Parse()
	c.amd = strings.Split(amd, ",")
	c.nvidia = strings.Split(nvidia, ",")
	for _, s := range strings.Split(curve, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n >= len(c.amd) {
			fatalf("-curve: %q must be between 1 and %d (one AMD target is left to add)", s, len(c.amd)-1)
		}
		c.curve = append(c.curve, n)
	}
	if c.dir == "" || c.offload == "" {
		fatalf("-dir and -offload are required")
	}
	if c.svg == "" {
		c.svg = filepath.Join(c.dir, "bazel-bench.svg")
	}
	if err := run(c); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bazelbench: "+format+"\n", args...)
	os.Exit(1)
}
