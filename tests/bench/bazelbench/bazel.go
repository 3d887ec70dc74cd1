package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// bazel runs Bazel in one workspace with one output base.
type bazel struct {
	workspace  string
	outputBase string
	flags      []string // after the command: --jobs, ...
	log        *os.File // every command's output, appended
}

// build is what one Bazel command did.
type build struct {
	wall         time.Duration // measured around the command
	elapsed      float64       // Bazel's "Elapsed time", seconds
	criticalPath float64       // Bazel's "Critical Path", seconds
	actions      int           // processes that were not internal
	cacheHits    int           // "remote cache hit" processes
	summary      string        // the "N processes: ..." line
}

func (b *bazel) run(args ...string) (build, error) {
	cmdline := append([]string{"--output_base=" + b.outputBase}, args[0])
	if args[0] == "build" || args[0] == "test" {
		cmdline = append(cmdline, b.flags...)
	}
	cmdline = append(cmdline, args[1:]...)
	cmd := exec.Command("bazel", cmdline...)
	cmd.Dir = b.workspace
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	fmt.Fprintf(b.log, "$ bazel %s\n%s\n", strings.Join(cmdline, " "), out.String())
	if err != nil {
		return build{}, fmt.Errorf("bazel %s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 20))
	}
	r := parseBuild(out.String())
	r.wall = wall
	return r, nil
}

var (
	elapsedRE   = regexp.MustCompile(`Elapsed time: ([0-9.]+)s(?:, Critical Path: ([0-9.]+)s)?`)
	processesRE = regexp.MustCompile(`INFO: ([0-9]+) process(?:es)?(?:: (.*?))?\.?\n`)
	partRE      = regexp.MustCompile(`^([0-9]+) (.+)$`)
)

// parseBuild reads Bazel 4.2's summary lines:
//
//	INFO: Elapsed time: 12.345s, Critical Path: 4.56s
//	INFO: 125 processes: 37 internal, 80 processwrapper-sandbox, 8 remote cache hit.
func parseBuild(out string) build {
	var r build
	if m := elapsedRE.FindStringSubmatch(out); m != nil {
		r.elapsed, _ = strconv.ParseFloat(m[1], 64)
		r.criticalPath, _ = strconv.ParseFloat(m[2], 64)
	}
	all := processesRE.FindAllStringSubmatch(out, -1)
	if len(all) == 0 {
		return r
	}
	m := all[len(all)-1]
	r.summary = strings.TrimSpace(strings.TrimPrefix(m[0], "INFO: "))
	total, _ := strconv.Atoi(m[1])
	internal := 0
	for _, part := range strings.Split(m[2], ", ") {
		p := partRE.FindStringSubmatch(strings.TrimSpace(part))
		if p == nil {
			continue
		}
		n, _ := strconv.Atoi(p[1])
		switch p[2] {
		case "internal":
			internal += n
		case "remote cache hit":
			r.cacheHits += n
		}
	}
	r.actions = total - internal - r.cacheHits
	return r
}

// heap returns the server's used heap after a full GC, in MB.
func (b *bazel) heap() (float64, error) {
	cmd := exec.Command("bazel", "--output_base="+b.outputBase, "info", "used-heap-size-after-gc")
	cmd.Dir = b.workspace
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("bazel info used-heap-size-after-gc: %v", err)
	}
	s := strings.TrimSpace(string(out))
	return strconv.ParseFloat(strings.TrimSuffix(s, "MB"), 64)
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
