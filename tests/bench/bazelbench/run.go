package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The two ways, by package of the generated workspace.
var ways = []struct{ pkg, name, color string }{
	{"per_target", "rules_offload (per source × target)", "#1f77b4"},
	{"multi_arch", "one multi-arch clang per source", "#d62728"},
}

// The steps measured at each point, in the order they run.
var steps = []string{"clean", "no-op", "edit a source", "add a target", "remove a target"}

// point is what one way measured at one number of AMD targets.
type point struct {
	amd     int
	results map[string]build
}

func run(c config) error {
	ws := &workspace{dir: filepath.Join(c.dir, "ws"), root: c.root, offload: c.offload,
		sources: c.sources, nvidia: c.nvidia, many: c.many}
	if err := os.RemoveAll(ws.dir); err != nil {
		return err
	}
	if err := ws.create(c.amd[:c.curve[0]]); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(c.dir, "bazel.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	bz := &bazel{workspace: ws.dir, outputBase: filepath.Join(c.dir, "ob"), flags: []string{fmt.Sprintf("--jobs=%d", c.jobs)}, log: log}
	defer bz.run("shutdown")
	// Repositories and the server first, outside every measurement.
	if _, err := bz.run("build", "--nobuild", "//per_target:all", "//multi_arch:all"); err != nil {
		return err
	}
	points := map[string][]point{}
	for _, amd := range c.curve {
		for _, w := range ways {
			p, err := measurePoint(bz, ws, c.amd, amd, "//"+w.pkg+":all")
			if err != nil {
				return err
			}
			points[w.pkg] = append(points[w.pkg], p)
		}
	}
	heap, err := bz.heap()
	if err != nil {
		return err
	}
	analysis, err := measureAnalysis(bz, c)
	if err != nil {
		return err
	}
	remote := ""
	if c.worker != "" {
		if remote, err = measureRemote(c, ws, log, points["per_target"][len(c.curve)-1]); err != nil {
			return err
		}
	}
	fmt.Print(report(c, points, heap, analysis, remote))
	return os.WriteFile(c.svg, []byte(chart(c, points)), 0o644)
}

// measurePoint runs the steps for one way with the first amd AMD targets.
func measurePoint(bz *bazel, ws *workspace, all []string, amd int, pattern string) (point, error) {
	p := point{amd: amd, results: map[string]build{}}
	if err := ws.setTargets(all[:amd]); err != nil {
		return p, err
	}
	if err := ws.resetSource(0); err != nil {
		return p, err
	}
	prepare := map[string]func() error{
		"edit a source":   func() error { return ws.editSource(0) },
		"add a target":    func() error { return ws.setTargets(all[:amd+1]) },
		"remove a target": func() error { return ws.setTargets(all[:amd]) },
	}
	if _, err := bz.run("clean"); err != nil {
		return p, err
	}
	for _, step := range steps {
		if f := prepare[step]; f != nil {
			if err := f(); err != nil {
				return p, err
			}
		}
		r, err := bz.run("build", pattern)
		if err != nil {
			return p, err
		}
		fmt.Fprintf(os.Stderr, "%s, %d AMD targets, %s: %.1f s, %s\n", pattern, amd, step, r.wall.Seconds(), r.summary)
		p.results[step] = r
	}
	return p, ws.resetSource(0)
}

var analysisPhaseRE = regexp.MustCompile(`(?i)total (?:interleaved loading-and-)?analysis phase time\s+([0-9.]+ m?s)`)

// measureAnalysis times the analysis of c.many offload targets: first in a
// server that has loaded nothing (loading and analysis), then again with
// another --define, which drops the analysis cache but keeps the loaded
// packages (analysis alone), with a profile for `bazel analyze-profile`.
func measureAnalysis(bz *bazel, c config) (string, error) {
	if _, err := bz.run("shutdown"); err != nil {
		return "", err
	}
	cold, err := bz.run("build", "--nobuild", "//many:all")
	if err != nil {
		return "", err
	}
	profile := filepath.Join(c.dir, "analysis.profile")
	warm, err := bz.run("build", "--nobuild", "--define=bazelbench=reanalyze", "--profile="+profile, "//many:all")
	if err != nil {
		return "", err
	}
	heap, err := bz.heap()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bazel", "--output_base="+bz.outputBase, "analyze-profile", profile)
	cmd.Dir = bz.workspace
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(bz.log, "$ bazel analyze-profile %s\n%s\n", profile, out)
	phase := "?"
	if m := analysisPhaseRE.FindStringSubmatch(string(out)); err == nil && m != nil {
		phase = m[1]
	}
	return fmt.Sprintf("| %d offload targets (%d AMD targets each) | %.1f s | %.1f s | %s | %.0f MB |\n",
		c.many, c.curve[len(c.curve)-1], cold.elapsed, warm.elapsed, phase, heap), nil
}

// measureRemote: the per-target clean build uploads to the worker's cache;
// a fresh output base builds from that cache, another on the worker.
func measureRemote(c config, ws *workspace, log *os.File, local point) (string, error) {
	out, err := exec.Command(c.worker, "up", filepath.Join(c.dir, "worker")).Output()
	if err != nil {
		return "", fmt.Errorf("%s up: %v", c.worker, err)
	}
	defer exec.Command(c.worker, "down", filepath.Join(c.dir, "worker")).Run()
	addr := strings.TrimSpace(string(out))
	if err := ws.setTargets(c.amd[:local.amd]); err != nil {
		return "", err
	}
	jobs := fmt.Sprintf("--jobs=%d", c.jobs)
	upload := &bazel{workspace: ws.dir, outputBase: filepath.Join(c.dir, "ob"), flags: []string{jobs}, log: log}
	if _, err := upload.run("clean"); err != nil {
		return "", err
	}
	up, err := upload.run("build", "--remote_cache="+addr, "//per_target:all")
	if err != nil {
		return "", err
	}
	rows := fmt.Sprintf("| local clean build (same server, for reference) | %.1f s | %d | |\n", local.results["clean"].wall.Seconds(), local.results["clean"].actions)
	rows += fmt.Sprintf("| local clean build uploading to the cache | %.1f s | %d | |\n", up.wall.Seconds(), up.actions)
	for _, v := range []struct {
		name, base string
		flags      []string
	}{
		{"fresh output base, remote cache", "ob_cache", []string{"--remote_cache=" + addr}},
		{"fresh output base, remote executor (cache not read)", "ob_exec", []string{"--remote_executor=" + addr, "--spawn_strategy=remote", "--remote_timeout=600", "--noremote_accept_cached"}},
	} {
		b := &bazel{workspace: ws.dir, outputBase: filepath.Join(c.dir, v.base), flags: append([]string{jobs}, v.flags...), log: log}
		// Repositories and the server first: the build alone is measured.
		if _, err := b.run("build", "--nobuild", "//per_target:all"); err != nil {
			return "", err
		}
		r, err := b.run("build", "//per_target:all")
		b.run("shutdown")
		if err != nil {
			return "", err
		}
		rows += fmt.Sprintf("| %s | %.1f s | %d | %s |\n", v.name, r.wall.Seconds(), r.actions, r.summary)
	}
	return rows, nil
}

func report(c config, points map[string][]point, heap float64, analysis, remote string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "S = %d sources (each as HIP and as CUDA), NVIDIA targets %s, --jobs=%d.\n\n",
		c.sources, strings.Join(c.nvidia, ", "), c.jobs)
	for i, amd := range c.curve {
		pt, ma := points["per_target"][i], points["multi_arch"][i]
		fmt.Fprintf(&b, "### %d targets (%s + %s)\n\n", amd+len(c.nvidia), strings.Join(c.amd[:amd], ", "), strings.Join(c.nvidia, ", "))
		b.WriteString("| step | per target: wall (actions) | multi-arch: wall (actions) | per target / multi-arch |\n|---|---|---|---|\n")
		for _, step := range steps {
			x, y := pt.results[step], ma.results[step]
			fmt.Fprintf(&b, "| %s | %.1f s (%d) | %.1f s (%d) | %.2f |\n", step, x.wall.Seconds(), x.actions, y.wall.Seconds(), y.actions, x.wall.Seconds()/y.wall.Seconds())
		}
		fmt.Fprintf(&b, "| clean: critical path | %.1f s | %.1f s | %.2f |\n\n", pt.results["clean"].criticalPath, ma.results["clean"].criticalPath,
			pt.results["clean"].criticalPath/ma.results["clean"].criticalPath)
	}
	fmt.Fprintf(&b, "Bazel server heap after the builds: %.0f MB.\n\n", heap)
	b.WriteString("| `bazel build --nobuild` | loading + analysis (fresh server) | analysis again (new --define) | its analysis phase (profile) | heap after |\n|---|---|---|---|---|\n")
	b.WriteString(analysis + "\n")
	if remote != "" {
		b.WriteString("| remote (per target, largest point) | wall | actions run | processes |\n|---|---|---|---|\n")
		b.WriteString(remote)
	}
	return b.String()
}

func chart(c config, points map[string][]point) string {
	var panels []panel
	for _, step := range []string{"clean", "add a target", "edit a source"} {
		p := panel{title: step}
		for _, w := range ways {
			s := series{name: w.name, color: w.color}
			for _, pt := range points[w.pkg] {
				s.points = append(s.points, [2]float64{float64(pt.amd + len(c.nvidia)), pt.results[step].wall.Seconds()})
			}
			p.series = append(p.series, s)
		}
		panels = append(panels, p)
	}
	return svgChart(fmt.Sprintf("Bazel build time against targets: %d sources, %d jobs", c.sources, c.jobs), panels)
}
