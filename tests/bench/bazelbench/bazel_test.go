package main

import "testing"

func TestParseBuild(t *testing.T) {
	for _, c := range []struct {
		out               string
		elapsed, critical float64
		actions, hits     int
	}{
		{"INFO: Elapsed time: 12.345s, Critical Path: 4.56s\nINFO: 125 processes: 37 internal, 88 processwrapper-sandbox.\n",
			12.345, 4.56, 88, 0},
		{"INFO: 124 processes: 86 remote cache hit, 38 internal.\nINFO: Elapsed time: 3.1s, Critical Path: 0.9s\n",
			3.1, 0.9, 0, 86},
		{"INFO: Elapsed time: 0.2s, Critical Path: 0.01s\nINFO: 0 processes.\n", 0.2, 0.01, 0, 0},
		{"INFO: 1 process: 1 internal.\nINFO: Elapsed time: 1.0s, Critical Path: 0.1s\n", 1.0, 0.1, 0, 0},
		{"INFO: 9 processes: 2 internal, 3 remote, 4 linux-sandbox.\n", 0, 0, 7, 0},
	} {
		r := parseBuild(c.out)
		if r.elapsed != c.elapsed || r.criticalPath != c.critical || r.actions != c.actions || r.cacheHits != c.hits {
			t.Errorf("parseBuild(%q) = elapsed %v, critical %v, actions %d, hits %d; want %v %v %d %d",
				c.out, r.elapsed, r.criticalPath, r.actions, r.cacheHits, c.elapsed, c.critical, c.actions, c.hits)
		}
	}
}

func TestAnalysisPhase(t *testing.T) {
	out := "=== PHASE SUMMARY INFORMATION ===\nTotal launch phase time         0.021 s    1.99%\n" +
		"Total interleaved loading-and-analysis phase time    0.734 s   69.49%\n"
	if m := analysisPhaseRE.FindStringSubmatch(out); m == nil || m[1] != "0.734 s" {
		t.Errorf("analysis phase of Bazel 4.2's analyze-profile: %q", m)
	}
}
