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
//
// The time cap is on CPU time (user and system, the command's and its
// waited-for children's), not on wall time: a blowup burns CPU, while a
// command that waits for a core on a loaded machine does not, so a test
// on a busy two-core CI machine is not failed by its neighbours. CPU time
// is polled from /proc/PID/stat and read exactly from the exit's rusage.
// A wall-clock backstop of ten times the cap still ends a command that
// hangs or waits on I/O without using the CPU.
package capped

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Caps of the robustness tests: what the robustness reviews ask of every reader.
const (
	MaxRSS  = 256 << 20
	MaxTime = 2 * time.Second
)

// WallFactor times the CPU cap is the wall-clock backstop: generous, so
// that only a command that hangs or waits without computing meets it.
const WallFactor = 10

// Result is how a capped command ended.
type Result struct {
	Code   int    // exit status; -1 when killed
	Output string // stdout and stderr together, the first 16 MiB
	// Lines and Bytes count all of the output, kept or not.
	Lines, Bytes int
	PeakRSS      int64 // bytes, as last polled
	Wall         time.Duration
	CPU          time.Duration // user and system time
	// Over names the cap the command passed ("memory", "time" for CPU
	// time, or "wall" for the backstop), or is empty when it stayed
	// within them (its exit status aside).
	Over string
}

func (r Result) String() string {
	out := r.Output
	if len(out) > 2000 {
		out = out[:2000] + "..."
	}
	return fmt.Sprintf("exit %d after %v (CPU %v), peak RSS %d MiB, over cap %q, output:\n%s", r.Code, r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond), r.PeakRSS>>20, r.Over, out)
}

// Run runs prog with args in dir, its environment env, killing it once its
// resident set passes maxRSS bytes, its CPU time passes limit, or its wall
// time passes WallFactor times limit. Output past 16 MiB is dropped.
func Run(dir string, env []string, maxRSS int64, limit time.Duration, prog string, args ...string) (Result, error) {
	return RunInput(nil, dir, env, maxRSS, limit, prog, args...)
}

// RunInput is Run with the command's standard input read from stdin (nil:
// the null device) through a pipe, so that the command meets a stream,
// not a file.
func RunInput(stdin io.Reader, dir string, env []string, maxRSS int64, limit time.Duration, prog string, args ...string) (Result, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
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
	deadline := time.After(WallFactor * limit)
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-deadline:
			if r.Over == "" {
				r.Over = "wall"
			}
			cmd.Process.Kill()
		case <-tick.C:
			pid := cmd.Process.Pid
			r.PeakRSS = max(r.PeakRSS, peakRSS(pid))
			if r.PeakRSS > maxRSS && r.Over == "" {
				r.Over = "memory"
				cmd.Process.Kill()
			}
			if cpuTime(pid) > limit && r.Over == "" {
				r.Over = "time"
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
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if r.CPU > limit && r.Over == "" {
		r.Over = "time"
	}
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

// cpuTime is the CPU time process pid has used, its own and its reaped
// children's (utime, stime, cutime and cstime of /proc/PID/stat, in the
// kernel's fixed USER_HZ of 100 ticks a second), 0 once it is gone.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name in parentheses may hold spaces: count fields
	// after its closing one, where field 3 (the state) comes first.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0
	}
	var ticks int64
	for _, s := range f[11:15] { // fields 14 to 17
		n, _ := strconv.ParseInt(s, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100)
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
