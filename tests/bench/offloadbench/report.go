package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// report renders the results as markdown: the machine, then one row per
// case with each tool's median and peak memory, the targets and a verdict.
func report(b *bench, results []result, load0, load1 string, took time.Duration) string {
	var s strings.Builder
	fmt.Fprintf(&s, "### offload benchmark (%s scale, median of %d runs per tool, %d where every tool's untimed run took under %v)\n\n", b.sc.name, b.sc.reps, b.sc.reps*quickRepsFactor, quickCase)
	fmt.Fprintf(&s, "Machine: %s; %d CPUs (`nproc`); %s RAM; Linux %s; work directory on %s.  \n",
		cpuModel(), runtime.NumCPU(), memTotal(), kernel(), fsType(b.dir))
	fmt.Fprintf(&s, "Tools: %s; cp from %s; offload built with %s.  \n",
		firstLine("clang-offload-bundler-22", "--version"), firstLine("cp", "--version"), runtime.Version())
	fmt.Fprintf(&s, "Load average (1, 5, 15 min) before: %s, after: %s. Took %s.\n\n", load0, load1, took.Round(time.Second))
	s.WriteString("| case | ours | LLVM | cp | ours RSS | LLVM RSS | targets | result |\n")
	s.WriteString("|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", caseName(r),
			timeCell(r, ours), timeCell(r, llvm), timeCell(r, cp), rssCell(r, ours), rssCell(r, llvm),
			checkCells(r), verdict(r))
	}
	s.WriteString("\nTimes are wall-clock medians (min–max). RSS is the peak resident set (ru_maxrss, what " +
		"`/usr/bin/time -v` prints as \"Maximum resident set size\") over all runs. Ratios divide medians. " +
		"\"identical\" compares ours and LLVM's outputs byte for byte.\n")
	return s.String()
}

func caseName(r result) string {
	name := r.c.name
	if r.size[0] > 0 {
		name += fmt.Sprintf(" — output: ours %s, LLVM %s bytes", commas(r.size[0]), commas(r.size[1]))
	}
	if r.same != "" {
		name += "; identical: " + r.same
	}
	return name
}

func timeCell(r result, name string) string {
	st, ok := r.stats[name]
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.3f s (%.3f–%.3f)", st.median.Seconds(), st.lo.Seconds(), st.hi.Seconds())
}

func rssCell(r result, name string) string {
	st, ok := r.stats[name]
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", float64(st.rssKiB)/1024)
}

func checkCells(r result) string {
	var parts []string
	for _, c := range r.c.checks {
		v, ok, known := c.eval(r)
		mark := "✗"
		switch {
		case !known:
			mark = "?"
		case ok:
			mark = "✓"
		}
		parts = append(parts, fmt.Sprintf("%s: %s %s", c.desc, v, mark))
	}
	return strings.Join(parts, "; ")
}

func verdict(r result) string {
	for _, c := range r.c.checks {
		if _, ok, known := c.eval(r); !ok || !known {
			return "**FAIL**"
		}
	}
	return "PASS"
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func memTotal() string {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(si.Totalram)*float64(si.Unit)/(1<<30))
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func fsType(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return "unknown"
	}
	switch st.Type {
	case 0xef53:
		return "ext4"
	case 0x58465342:
		return "xfs"
	case 0x9123683e:
		return "btrfs"
	case 0x01021994:
		return "tmpfs"
	case 0x794c7630:
		return "overlayfs"
	}
	return fmt.Sprintf("filesystem 0x%x", st.Type)
}

func firstLine(argv ...string) string {
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		return argv[0] + " (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
