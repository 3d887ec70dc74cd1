package bundler_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

var (
	textTypes   = []string{"i", "ii", "cui", "hipi", "d", "ll", "s"}
	binaryTypes = []string{"bc", "gch", "ast", "o"} // o: with a non-object host input
)

// TestStandardIDs checks the test's own table of standardized IDs against
// LLVM, and that ours stores the same IDs: one bundle per spelling.
func TestStandardIDs(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "in", []byte("X"))
	type tc struct{ raw, std string }
	var cases []tc
	for _, h := range hostSpellings {
		cases = append(cases, tc{h.raw, h.std})
	}
	for _, f := range deviceFamilies {
		for _, s := range f.spellings {
			for _, p := range f.procs {
				cases = append(cases, tc{"hip-" + s + "-" + p.name, "hip-" + f.std + "-" + p.name})
			}
		}
	}
	cases = append(cases,
		tc{"hip-amdgcn-amd-amdhsa--tahiti", "hip-amdgcn-amd-amdhsa--"},
		tc{"hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"},
		tc{"hip-amdgcn--amdhsa--gfx906", "hip-amdgcn-unknown-amdhsa--gfx906"},
		tc{"hip-amdgcn-amd---gfx906", "hip-amdgcn-amd-unknown-unknown-gfx906"},
		tc{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-"},
		tc{"hip-amdgcn-amd-amdhsa--gfx906:foo+", "hip-amdgcn-amd-amdhsa--gfx906:foo+"},
		tc{"hip-nvptx64-nvidia-cuda--sm_90a", "hip-nvptx64-nvidia-cuda-unknown-sm_90a"},
		tc{"hip-amdgcn-amd-amdhsa--sm_90a", "hip-amdgcn-amd-amdhsa--sm_90a"},
	)
	for i, c := range cases {
		args := []string{"-type=bc", "-targets=" + c.raw, "-input=in"}
		lr := run(t, dir, nil, l, append(args, "-output=l.bc")...)
		or := run(t, dir, nil, ours(), append(args, "-output=o.bc")...)
		if lr.Code != 0 || or.Code != 0 {
			t.Errorf("case %d %s: LLVM %v\nours %v", i, c.raw, lr, or)
			continue
		}
		if got := run(t, dir, nil, l, "-type=bc", "-list", "-input=l.bc").Stdout; got != c.std+"\n" {
			t.Errorf("test table is wrong: LLVM stores %q as %q, the table says %q", c.raw, got, c.std)
		}
		sameBytes(t, c.raw, llvmtest.ReadFile(t, filepath.Join(dir, "l.bc")), llvmtest.ReadFile(t, filepath.Join(dir, "o.bc")))
	}
}

// TestBundleCrossCheck bundles random target sets and payloads with both
// tools (every type, random alignments, zero-size entries), compares the
// bytes, the --list output and a random unbundling of the result.
func TestBundleCrossCheck(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	for _, mode := range []string{"binary", "text"} {
		n := 60
		if mode == "text" {
			n = 40
		}
		for i := 0; i < n; i++ {
			seed := uint64(i)
			t.Run(fmt.Sprintf("%s/%d", mode, i), func(t *testing.T) {
				t.Parallel()
				bundleCase(t, l, mode == "text", seed)
			})
		}
	}
}

func bundleCase(t *testing.T, l tool, text bool, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0xb0d1e))
	if text {
		r = rand.New(rand.NewPCG(seed, 0x7e47))
	}
	dir := t.TempDir()
	ts := randTargets(r, 5)
	typ := pick(r, binaryTypes)
	if text {
		typ = pick(r, textTypes)
	}
	args := []string{pick(r, []string{"-", "--"}) + "type=" + typ, "-targets=" + raws(ts)}
	for i, tg := range ts {
		name := fileName(i)
		llvmtest.WriteFile(t, dir, name, randPayload(r, text))
		if tg.kind == "host" && typ == "o" && r.IntN(3) == 0 {
			name = "/dev/null" // a HIP fat binary's host input
		}
		args = append(args, "-input="+name)
	}
	if !text && r.IntN(4) != 0 {
		args = append(args, fmt.Sprintf("-bundle-align=%d", pick(r, alignments)))
	}
	t.Logf("bundle: %q", args)
	lr := run(t, dir, nil, l, append(args, "-output=llvm.out")...)
	or := run(t, dir, nil, ours(), append(args, "-output=ours.out")...)
	if lr.Code != 0 {
		sameError(t, "bundle", lr, or)
		if exists(filepath.Join(dir, "ours.out")) {
			t.Errorf("ours left an output after failing")
		}
		return
	}
	if or.Code != 0 {
		t.Fatalf("LLVM bundled, ours failed: %v", or)
	}
	want := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.out"))
	if !sameBytes(t, "bundle", want, llvmtest.ReadFile(t, filepath.Join(dir, "ours.out"))) {
		return
	}
	listBoth(t, l, dir, typ, "llvm.out", stds(ts))
	if reqs, omp := randRequests(r, ts); reqs != nil {
		extra := []string{}
		if omp {
			extra = append(extra, "--hip-openmp-compatible")
		}
		if r.IntN(3) == 0 {
			extra = append(extra, "-allow-missing-bundles")
		}
		unbundleBoth(t, l, dir, typ, "llvm.out", reqs, extra...)
	}
}

// listBoth runs --list with both tools; the outputs must be the same,
// order included (LLVM prints a binary bundle's entries in the order of its
// StringMap), and hold the IDs in want when it is not nil.
func listBoth(t *testing.T, l tool, dir, typ, in string, want []string) {
	t.Helper()
	lr := run(t, dir, nil, l, "-type="+typ, "-list", "-input="+in)
	or := run(t, dir, nil, ours(), "-type="+typ, "-list", "-input="+in)
	if lr.Code != 0 || or.Code != 0 {
		t.Fatalf("list: LLVM %v\nours %v", lr, or)
	}
	if lr.Stdout != or.Stdout {
		t.Errorf("list: LLVM %q, ours %q", lr.Stdout, or.Stdout)
	}
	if want != nil && !slices.Equal(sortedLines(lr.Stdout), want) {
		t.Errorf("list: LLVM printed %q, the test expected %q", lr.Stdout, want)
	}
}

// unbundleBoth unbundles in for reqs with both tools and compares the exit
// status, the message and every output.
func unbundleBoth(t *testing.T, l tool, dir, typ, in string, reqs []target, extra ...string) {
	t.Helper()
	names := make([]string, len(reqs))
	for i, q := range reqs {
		names[i] = q.raw
	}
	unbundleRaw(t, l, dir, typ, in, names, extra...)
}

func unbundleRaw(t *testing.T, l tool, dir, typ, in string, reqs []string, extra ...string) (llvmRes, ourRes llvmtest.Result) {
	t.Helper()
	args := append([]string{"-unbundle", "-type=" + typ, "-targets=" + strings.Join(reqs, ","), "-input=" + in}, extra...)
	t.Logf("unbundle: %q", args)
	lArgs, oArgs := append([]string(nil), args...), append([]string(nil), args...)
	for i := range reqs {
		lArgs = append(lArgs, fmt.Sprintf("-output=l%d.out", i))
		oArgs = append(oArgs, fmt.Sprintf("-output=o%d.out", i))
	}
	for i := range reqs {
		os.Remove(filepath.Join(dir, fmt.Sprintf("l%d.out", i)))
		os.Remove(filepath.Join(dir, fmt.Sprintf("o%d.out", i)))
	}
	lr := run(t, dir, nil, l, lArgs...)
	or := run(t, dir, nil, ours(), oArgs...)
	if lr.Code != 0 {
		sameError(t, "unbundle", lr, or)
		for i := range reqs {
			if exists(filepath.Join(dir, fmt.Sprintf("o%d.out", i))) {
				t.Errorf("ours left output %d after failing", i)
			}
		}
		return lr, or
	}
	if or.Code != 0 {
		t.Fatalf("LLVM unbundled, ours failed: %v", or)
	}
	for i, q := range reqs {
		want := llvmtest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("l%d.out", i)))
		got := llvmtest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("o%d.out", i)))
		if !bytes.Equal(want, got) {
			t.Errorf("unbundle output for %s: %s", q, llvmtest.FirstDiff(want, got))
		}
	}
	return lr, or
}
