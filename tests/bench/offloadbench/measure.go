package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sample is one timed run.
type sample struct {
	wall   time.Duration
	rssKiB int64 // peak resident set, as /usr/bin/time -v reports it
}

// stats summarises a tool's runs.
type stats struct {
	median, lo, hi time.Duration
	rssKiB         int64 // the largest of the runs
}

type result struct {
	c     benchCase
	stats map[string]stats
	size  [2]int64 // compressed outputs of ours and LLVM, when c.sizes is set
	same  string   // "", "yes" or a note on which outputs differ
}

// quickCase is the warm-up time under which a case gets quickRepsFactor
// times the rounds: short runs are the noisiest, and cheap to repeat.
const (
	quickCase       = 250 * time.Millisecond
	quickRepsFactor = 3
)

// measureCase runs each tool once untimed (warming the page cache and
// producing the outputs compared for identity and size), then reps timed
// rounds in which the tools take turns in a rotating order.
func (b *bench) measureCase(c benchCase) (result, error) {
	r := result{c: c, stats: map[string]stats{}}
	if err := ensureDir(b.out("cp")); err != nil {
		return r, err
	}
	reps := b.sc.reps * quickRepsFactor
	for _, t := range c.tools {
		s, err := runTool(t)
		if err != nil {
			return r, err
		}
		if s.wall >= quickCase {
			reps = b.sc.reps
		}
	}
	r.same = compareOutputs(c.same)
	if c.sizes != nil {
		r.size = [2]int64{fileSize(c.sizes[0]), fileSize(c.sizes[1])}
	}
	samples := map[string][]sample{}
	for round := range reps {
		for k := range c.tools {
			t := c.tools[(round+k)%len(c.tools)]
			s, err := runTool(t)
			if err != nil {
				return r, err
			}
			samples[t.name] = append(samples[t.name], s)
		}
	}
	for name, ss := range samples {
		r.stats[name] = summarize(ss)
	}
	return r, nil
}

// runTool removes the tool's outputs, flushes dirty pages so that earlier
// runs' writeback does not land in this one, and times the command. Peak
// memory comes from /usr/bin/time, which forks a fresh process: a child of
// this (Go, vfork-style) process would inherit its high-water mark.
func runTool(t tool) (sample, error) {
	removeAll(t.outs)
	syscall.Sync()
	rss, err := os.CreateTemp("", "offloadbench-rss-*")
	if err != nil {
		return sample{}, err
	}
	rss.Close()
	defer os.Remove(rss.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", rss.Name()}, t.argv...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(t.argv, " "), err, stderr.Bytes())
	}
	s := sample{wall: wall}
	if b, err := os.ReadFile(rss.Name()); err == nil {
		s.rssKiB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	return s, nil
}

func summarize(ss []sample) stats {
	walls := make([]time.Duration, len(ss))
	var st stats
	for i, s := range ss {
		walls[i] = s.wall
		st.rssKiB = max(st.rssKiB, s.rssKiB)
	}
	slices.Sort(walls)
	st.lo, st.hi = walls[0], walls[len(walls)-1]
	n := len(walls)
	if n%2 == 1 {
		st.median = walls[n/2]
	} else {
		st.median = (walls[n/2-1] + walls[n/2]) / 2
	}
	return st
}

// compareOutputs reports whether ours and LLVM's outputs are identical.
func compareOutputs(ps [][2]string) string {
	if len(ps) == 0 {
		return ""
	}
	var differ []string
	for _, p := range ps {
		if !sameFile(p[0], p[1]) {
			differ = append(differ, filepath.Base(p[0]))
		}
	}
	if len(differ) == 0 {
		return "yes"
	}
	return "no (" + strings.Join(differ, ", ") + ")"
}

// sameFile compares two files in chunks, keeping this process small.
func sameFile(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil { // both ended after the same bytes, or a read failed
			return ended(ea) && ended(eb)
		}
	}
}

func ended(err error) bool { return err == io.EOF || err == io.ErrUnexpectedEOF }

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// check is one performance target (docs/performance.md), evaluated on a case's results.
type check struct {
	desc string
	eval func(r result) (value string, ok bool, known bool)
}

func ratioAtMost(a, b string, limit float64) check {
	return check{
		desc: fmt.Sprintf("%s/%s ≤ %g", a, b, limit),
		eval: func(r result) (string, bool, bool) {
			x, ok := ratio(r, a, b)
			return fmt.Sprintf("%.2f", x), x <= limit, ok
		},
	}
}

func ratioAtLeast(a, b string, limit float64) check {
	return check{
		desc: fmt.Sprintf("%s/%s ≥ %g", a, b, limit),
		eval: func(r result) (string, bool, bool) {
			x, ok := ratio(r, a, b)
			return fmt.Sprintf("%.2f", x), x >= limit, ok
		},
	}
}

func ratio(r result, a, b string) (float64, bool) {
	sa, okA := r.stats[a]
	sb, okB := r.stats[b]
	if !okA || !okB || sb.median == 0 {
		return 0, false
	}
	return float64(sa.median) / float64(sb.median), true
}

func rssAtMost(name string, mibLimit int64) check {
	return check{
		desc: fmt.Sprintf("%s RSS ≤ %d MiB", name, mibLimit),
		eval: func(r result) (string, bool, bool) {
			s, ok := r.stats[name]
			return fmt.Sprintf("%.1f MiB", float64(s.rssKiB)/1024), s.rssKiB <= mibLimit<<10, ok
		},
	}
}

func timeAtMost(name string, seconds float64) check {
	return check{
		desc: fmt.Sprintf("%s < %g s", name, seconds),
		eval: func(r result) (string, bool, bool) {
			s, ok := r.stats[name]
			return fmt.Sprintf("%.3f s", s.median.Seconds()), s.median.Seconds() < seconds, ok
		},
	}
}

func sizeNotLarger() check {
	return check{
		desc: "size ours/LLVM ≤ 1",
		eval: func(r result) (string, bool, bool) {
			if r.size[0] <= 0 || r.size[1] <= 0 {
				return "", false, false
			}
			x := float64(r.size[0]) / float64(r.size[1])
			return fmt.Sprintf("%.3f", x), r.size[0] <= r.size[1], true
		},
	}
}
