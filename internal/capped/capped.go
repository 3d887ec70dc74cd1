// Package capped runs a command under a cap on its memory and its time,
// for the tests of hostile inputs: a reader that blows up is killed when
// it passes the cap, instead of taking the machine's memory, and the test
// reports which cap it hit.
//
// RLIMIT_AS cannot be the cap: the Go runtime reserves more address space
// than a small cap at start and dies before main. The process's peak
// resident set (VmHWM in /proc/PID/status, which the kernel keeps for its
// memory map) is polled instead, every few milliseconds, so a spike
// between polls still shows at the next. getrusage's ru_maxrss is exact
// but for one flaw: when the forked child execs, the kernel folds the
// parent's peak (its VmHWM) into it, so it is used only where it is larger
// than the parent's peak; a command that ends between two polls is then
// measured too, unless the test itself is larger.
package capped

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Caps of the robustness tests: what issue 27 asks of every reader.
const (
	MaxRSS  = 256 << 20
	MaxTime = 2 * time.Second
)

// Result is how a capped command ended.
type Result struct {
	Code   int    // exit status; -1 when killed
	Output string // stdout and stderr together, the first 16 MiB
	// Lines and Bytes count all of the output, kept or not.
	Lines, Bytes int
	PeakRSS      int64 // bytes, as last polled
	Wall         time.Duration
	// Over names the cap the command passed ("memory" or "time"), or is
	// empty when it stayed within both (its exit status aside).
	Over string
}

func (r Result) String() string {
	out := r.Output
	if len(out) > 2000 {
		out = out[:2000] + "..."
	}
	return fmt.Sprintf("exit %d after %v, peak RSS %d MiB, over cap %q, output:\n%s", r.Code, r.Wall.Round(time.Millisecond), r.PeakRSS>>20, r.Over, out)
}

// Run runs prog with args in dir, its environment env, killing it once its
// resident set passes maxRSS bytes or it runs longer than limit. Output
// past 16 MiB is dropped.
func Run(dir string, env []string, maxRSS int64, limit time.Duration, prog string, args ...string) (Result, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	out := &capWriter{max: 16 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r Result
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(limit)
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-deadline:
			r.Over = "time"
			cmd.Process.Kill()
		case <-tick.C:
			r.PeakRSS = max(r.PeakRSS, peakRSS(cmd.Process.Pid))
			if r.PeakRSS > maxRSS && r.Over == "" {
				r.Over = "memory"
				cmd.Process.Kill()
			}
		}
	}
	r.Wall = time.Since(start)
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return Result{}, err
	}
	r.Code, r.Output = cmd.ProcessState.ExitCode(), out.String()
	r.Lines, r.Bytes = out.lines, out.bytes
	if maxrss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; maxrss > peakRSS(os.Getpid()) {
		r.PeakRSS = max(r.PeakRSS, maxrss)
	}
	if r.PeakRSS > maxRSS && r.Over == "" {
		r.Over = "memory"
	}
	return r, nil
}

// peakRSS is the peak resident set of process pid in bytes (VmHWM), 0
// once it is gone.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// capWriter keeps the first max bytes written to it and counts them all.
type capWriter struct {
	buf          bytes.Buffer
	max          int
	lines, bytes int
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.bytes += len(p)
	w.lines += bytes.Count(p, []byte("\n"))
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }
