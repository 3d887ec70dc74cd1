package bundler_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

const (
	hostT = "host-x86_64-unknown-linux-gnu"
	g906  = "hip-amdgcn-amd-amdhsa--gfx906"
	g908  = "hip-amdgcn-amd-amdhsa--gfx908"
)

// cliDir holds three inputs and LLVM's bundle of them.
func cliDir(t *testing.T) string {
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "h", []byte("HOSTDATA"))
	llvmtest.WriteFile(t, dir, "d1", []byte("DEV1"))
	llvmtest.WriteFile(t, dir, "d2", []byte("DEVICE-TWO\n"))
	return dir
}

// TestOptionSpellings runs one bundling job and one unbundling job in
// every spelling LLVM's command-line library accepts, through both names
// of our binary; each must write what LLVM writes for the plainest
// spelling, with the same warnings.
func TestOptionSpellings(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := cliDir(t)
	targets := hostT + "," + g906 + "," + g908
	base := []string{"-type=bc", "-targets=" + targets, "-input=h", "-input=d1", "-input=d2", "-bundle-align=8"}
	if r := run(t, dir, nil, l, append(base, "-output=want.bc")...); r.Code != 0 {
		t.Fatalf("LLVM: %v", r)
	}
	want := llvmtest.ReadFile(t, filepath.Join(dir, "want.bc"))
	bundles := [][]string{
		{"--type=bc", "--targets=" + targets, "--input=h", "--input=d1", "--input=d2", "--bundle-align=8", "--output=%OUT%"},
		{"-type", "bc", "-targets", targets, "-input", "h", "-input", "d1", "-input", "d2", "-bundle-align", "8", "-output", "%OUT%"},
		{"--type", "bc", "--targets", hostT, "--targets", g906 + "," + g908, "--input", "h", "--input=d1", "-input", "d2", "--bundle-align", "8", "--output", "%OUT%"},
		{"-type=bc", "-targets=" + targets, "-inputs=h,d1,d2", "-bundle-align=8", "-outputs=%OUT%"},
		{"-type=bc", "-targets=" + targets, "-inputs=h,d1", "--inputs", "d2", "-bundle-align=0x8", "-output=%OUT%"},
		{"-type=bc", "-targets=" + targets, "-input=h", "-input=d1", "-input=d2", "-bundle-align=010", "-output=%OUT%", "-compress=false", "-verbose=0"},
		{"-type=bc", "-targets=" + targets, "-input=h", "-input=d1", "-input=d2", "-bundle-align=8", "-output=%OUT%", "-hip-openmp-compatible", "-allow-missing-bundles", "--###"},
	}
	for i, args := range bundles {
		for _, tl := range []tool{l, ours(), oursSub()} {
			out := tl.name + ".bc"
			a := replaceArg(args, "%OUT%", out)
			r := run(t, dir, nil, tl, a...)
			if r.Code != 0 {
				t.Errorf("spelling %d, %s: %v", i, tl.name, r)
				continue
			}
			if got := llvmtest.ReadFile(t, filepath.Join(dir, out)); !bytes.Equal(got, want) {
				t.Errorf("spelling %d (%q), %s: %s", i, a, tl.name, llvmtest.FirstDiff(want, got))
			}
			if tl.name != "llvm" {
				lr := run(t, dir, nil, l, replaceArg(args, "%OUT%", "x.bc")...)
				sameWarnings(t, i, lr, r)
			}
		}
	}
	unbundles := [][]string{
		{"-unbundle", "-type=bc", "-targets=" + g908 + "," + hostT, "-input=want.bc", "-output=%A%", "-output=%B%"},
		{"--unbundle", "--type", "bc", "--targets", g908, "--targets", hostT, "--input", "want.bc", "--output", "%A%", "--output", "%B%"},
		{"-unbundle=true", "-type=bc", "-targets=" + g908 + "," + hostT, "-inputs=want.bc", "-outputs=%A%,%B%"},
		{"-unbundle=1", "-type=bc", "-targets=" + g908 + "," + hostT, "-input=want.bc", "-outputs=%A%", "-outputs=%B%", "-check-input-archive=false"},
	}
	for i, args := range unbundles {
		for _, tl := range []tool{ours(), oursSub()} {
			a := replaceArg(replaceArg(args, "%A%", "a.out"), "%B%", "b.out")
			os.Remove(filepath.Join(dir, "a.out"))
			os.Remove(filepath.Join(dir, "b.out"))
			r := run(t, dir, nil, tl, a...)
			if r.Code != 0 {
				t.Errorf("unbundle spelling %d, %s: %v", i, tl.name, r)
				continue
			}
			if got := string(llvmtest.ReadFile(t, filepath.Join(dir, "a.out"))); got != "DEVICE-TWO\n" {
				t.Errorf("unbundle spelling %d, %s: gfx908 output %q", i, tl.name, got)
			}
			if got := string(llvmtest.ReadFile(t, filepath.Join(dir, "b.out"))); got != "HOSTDATA" {
				t.Errorf("unbundle spelling %d, %s: host output %q", i, tl.name, got)
			}
			lr := run(t, dir, nil, l, replaceArg(replaceArg(args, "%A%", "la.out"), "%B%", "lb.out")...)
			sameWarnings(t, i, lr, r)
		}
	}
	for _, flag := range []string{"-list", "--list", "-list=true"} {
		lr := run(t, dir, nil, l, "-type=bc", flag, "-input=want.bc")
		for _, tl := range []tool{ours(), oursSub()} {
			r := run(t, dir, nil, tl, "--type", "bc", flag, "--input", "want.bc")
			if r.Code != 0 || strings.Join(sortedLines(r.Stdout), ",") != strings.Join(sortedLines(lr.Stdout), ",") {
				t.Errorf("%s %s: LLVM %v\nours %v", flag, tl.name, lr, r)
			}
		}
	}
}

// replaceArg replaces a placeholder such as %OUT% in every argument.
func replaceArg(args []string, from, to string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, from, to)
	}
	return out
}

// sameWarnings checks that ours printed LLVM's warnings, word for word.
func sameWarnings(t *testing.T, i int, lr, or llvmtest.Result) {
	t.Helper()
	for _, line := range strings.Split(lr.Stderr, "\n") {
		if _, w, ok := strings.Cut(line, "warning: "); ok && !strings.Contains(or.Stderr, w) {
			t.Errorf("case %d: LLVM warns %q, ours printed %q", i, w, or.Stderr)
		}
	}
}

// TestHelpAndVersion: --help, -help and -h list every LLVM option; --version
// names the LLVM release it matches.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	options := []string{"--type", "--targets", "--input", "--inputs", "--output", "--outputs", "--unbundle",
		"--list", "--bundle-align", "--allow-missing-bundles", "--check-input-archive",
		"--hip-openmp-compatible", "--compress", "--compression-level", "--verbose", "--###", "--version", "--help"}
	for _, flag := range []string{"--help", "-help", "-h"} {
		for _, tl := range []tool{ours(), oursSub()} {
			r := run(t, dir, nil, tl, flag)
			if r.Code != 0 {
				t.Errorf("%s %s: %v", tl.name, flag, r)
			}
			for _, o := range options {
				if !strings.Contains(r.Stdout, o) {
					t.Errorf("%s %s: help does not mention %s", tl.name, flag, o)
				}
			}
		}
	}
	for _, tl := range []tool{ours(), oursSub()} {
		r := run(t, dir, nil, tl, "--version")
		if r.Code != 0 || !strings.Contains(r.Stdout, "clang-offload-bundler version 22.1.8") {
			t.Errorf("%s --version: %v", tl.name, r)
		}
	}
	// Ours says 22.1.8, the release it follows, whichever LLVM is the oracle.
	p := llvmtest.Tool(t, llvmBundlerName)
	r := run(t, dir, nil, tool{"llvm", []string{p}}, "--version")
	if want := fmt.Sprintf("clang-offload-bundler version %d.", llvmtest.OracleMajor()); !strings.Contains(r.Stdout, want) ||
		(llvmtest.OracleMajor() == llvmtest.DefaultOracleMajor && !strings.Contains(r.Stdout, "clang-offload-bundler version 22.1.8")) {
		t.Errorf("LLVM's version line changed: %q; update the test", r.Stdout)
	}
}

// TestCommandLineErrors triggers every command-line error of LLVM 22's
// bundler (docs/provenance.md#bundler-errors) with both tools: same exit status (1), and our message contains
// LLVM's text.
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := cliDir(t)
	llvmtest.WriteFile(t, dir, "b.bc", binaryBundle([]rawEntry{{hostT + "-", []byte("H")}, {g906, []byte("D")}}, 1))
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	llvmtest.WriteFile(t, dir, "bad.bc", binaryBundle([]rawEntry{{hostT + "-", []byte("H")}, {"hip-amdgcn-amd-amdhsa", []byte("D")}}, 1))
	llvmtest.WriteFile(t, dir, "short.a", []byte("!<arch>"))
	h := "-targets=" + hostT
	cases := []struct {
		name string
		args []string
	}{
		{"input and inputs", []string{"-type=bc", h, "-input=h", "-inputs=h", "-output=o"}},
		{"output and outputs", []string{"-type=bc", h, "-input=h", "-output=o", "-outputs=p"}},
		{"unbundle and list", []string{"-type=bc", "-list", "-unbundle", "-input=b.bc"}},
		{"list two inputs", []string{"-type=bc", "-list", "-input=b.bc", "-input=b.bc"}},
		{"list outputs", []string{"-type=bc", "-list", "-input=b.bc", "-output=o"}},
		{"list targets", []string{"-type=bc", "-list", "-input=b.bc", h}},
		{"check archive bundling", []string{"-type=bc", "-check-input-archive", h, "-input=h", "-output=o"}},
		{"check archive not a", []string{"-type=bc", "-unbundle", "-check-input-archive", h, "-input=b.bc", "-output=o"}},
		{"no output", []string{"-type=bc", h, "-input=h"}},
		{"no targets", []string{"-type=bc", "-input=h", "-output=o"}},
		{"no output before no targets", []string{"-type=bc", "-input=h"}},
		{"unbundle two inputs", []string{"-type=bc", "-unbundle", h, "-input=b.bc", "-input=b.bc", "-output=o"}},
		{"unbundle count", []string{"-type=bc", "-unbundle", h + "," + g906, "-input=b.bc", "-output=o"}},
		{"bundle archive", []string{"-type=a", h, "-input=h", "-output=o"}},
		{"bundle two outputs", []string{"-type=bc", h, "-input=h", "-output=o", "-output=p"}},
		{"bundle count", []string{"-type=bc", h + "," + g906, "-input=h", "-output=o"}},
		{"duplicate", []string{"-type=bc", h + "," + g906 + "," + g906, "-input=h", "-input=d1", "-input=d2", "-output=o"}},
		{"short target", []string{"-type=bc", h + ",hip-amdgcn-amd", "-input=h", "-input=d1", "-output=o"}},
		{"unknown kind", []string{"-type=bc", h + ",cuda-nvptx64-nvidia-cuda--sm_70", "-input=h", "-input=d1", "-output=o"}},
		{"unknown triple", []string{"-type=bc", h + ",hip-foo-amd-amdhsa--gfx906", "-input=h", "-input=d1", "-output=o"}},
		{"unknown kind and triple", []string{"-type=bc", h + ",sycl-AMDGCN-amd-amdhsa--gfx906", "-input=h", "-input=d1", "-output=o"}},
		{"conflict", []string{"-type=bc", h + "," + g906 + "," + g906 + ":xnack+", "-input=h", "-input=d1", "-input=d2", "-output=o"}},
		{"conflict sramecc xnack", []string{"-type=bc", h + "," + g906 + ":xnack+," + g906 + ":sramecc-", "-input=h", "-input=d1", "-input=d2", "-output=o"}},
		{"conflict unbundle", []string{"-type=bc", "-unbundle", "-targets=" + g906 + "," + g906 + ":xnack-", "-input=b.bc", "-output=o", "-output=p"}},
		{"two hosts", []string{"-type=bc", h + ",host-x86_64-pc-linux-gnu", "-input=h", "-input=d1", "-output=o"}},
		{"no host", []string{"-type=bc", "-targets=openmp-nvptx64-nvidia-cuda--sm_70", "-input=d1", "-output=o"}},
		{"two hosts unbundle", []string{"-type=bc", "-unbundle", h + ",host-x86_64-pc-linux-gnu", "-input=b.bc", "-output=o", "-output=p"}},
		{"bad type", []string{"-type=zz", h, "-input=h", "-output=o"}},
		{"missing input", []string{"-type=bc", h, "-input=nonexistent", "-output=o"}},
		{"missing unbundle input", []string{"-type=bc", "-unbundle", h, "-input=nonexistent", "-output=o"}},
		{"missing list input", []string{"-type=bc", "-list", "-input=nonexistent"}},
		{"output dir missing", []string{"-type=bc", h, "-input=h", "-output=no/such/dir/o"}},
		{"output is a directory", []string{"-type=bc", h, "-input=h", "-output=adir"}},
		{"unbundle output is a directory", []string{"-type=bc", "-unbundle", h, "-input=b.bc", "-output=adir"}},
		{"missing one", []string{"-type=bc", "-unbundle", "-targets=" + g908, "-input=b.bc", "-output=o"}},
		{"missing two", []string{"-type=bc", "-unbundle", "-targets=" + g908 + ",openmp-nvptx64-nvidia-cuda--sm_70", "-input=b.bc", "-output=o", "-output=p"}},
		{"missing three", []string{"-type=bc", "-unbundle", "-targets=" + g908 + ",openmp-nvptx64-nvidia-cuda--sm_70," + g906 + ":xnack+", "-input=b.bc", "-output=o", "-output=p", "-output=q"}},
		{"bad id in bundle", []string{"-type=bc", "-unbundle", "-targets=" + g906, "-input=bad.bc", "-output=o"}},
		{"not an archive", []string{"-type=a", "-unbundle", "-targets=" + g906, "-input=h", "-output=o"}},
		{"archive shorter than its magic", []string{"-type=a", "-unbundle", "-targets=" + g906, "-input=short.a", "-output=o"}},
	}
	for _, c := range cases {
		outs := []string{"o", "p", "q"}
		lr := run(t, dir, nil, l, c.args...)
		for _, o := range outs {
			os.Remove(filepath.Join(dir, o)) // LLVM may leave some
		}
		or := run(t, dir, nil, ours(), c.args...)
		sameError(t, c.name, lr, or)
		sameError(t, c.name+" (offload bundler)", lr, run(t, dir, nil, oursSub(), c.args...))
		for _, o := range outs {
			if exists(filepath.Join(dir, o)) {
				os.Remove(filepath.Join(dir, o))
				t.Errorf("%s: an output exists after the failure", c.name)
			}
		}
	}
}

// TestOptionParseErrors: errors of LLVM's option parser itself, printed as
// "<prog>: <message>" without "error:".
func TestOptionParseErrors(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := cliDir(t)
	b := []string{"-type=bc", "-targets=" + hostT + "," + g906, "-input=h", "-input=d1", "-output=o"}
	cases := [][]string{
		{"-targets=" + hostT, "-input=h", "-output=o"}, // no -type
		append(b[:len(b):len(b)], "-bundle-align=x"),
		append(b[:len(b):len(b)], "-bundle-align=-1"),
		append(b[:len(b):len(b)], "-bundle-align=1_6"),
		append(b[:len(b):len(b)], "-compression-level=abc"),
		append(b[:len(b):len(b)], "-unbundle=yes"),
		append(b[:len(b):len(b)], "-bogus-option"),
		append(b[:len(b):len(b)], "positional"),
		{"-type=bc", "-targets"},
	}
	for i, args := range cases {
		lr := run(t, dir, nil, l, args...)
		or := run(t, dir, nil, ours(), args...)
		want := firstLineAfterProg(lr.Stderr, l.argv[0])
		got := firstLineAfterProg(or.Stderr, linkBin, "clang-offload-bundler")
		if lr.Code != 1 || want == "" {
			t.Fatalf("case %d %q: LLVM did not fail as expected: %v", i, args, lr)
		}
		if or.Code != 1 || !strings.Contains(got, want) {
			t.Errorf("case %d %q: want exit 1 and %q\nours: %v", i, args, want, or)
		}
		os.Remove(filepath.Join(dir, "o"))
	}
	// Every bad argument is reported, then every missing option, as LLVM
	// does: compare the whole of stderr.
	for _, args := range [][]string{{"--foo", "--bar"}, {"--foo", "-type"}} {
		lr := run(t, dir, nil, l, args...)
		or := run(t, dir, nil, ours(), args...)
		norm := func(s string, progs ...string) string {
			for _, p := range progs {
				s = strings.ReplaceAll(s, p, "PROG")
			}
			return s
		}
		if want, got := norm(lr.Stderr, l.argv[0]), norm(or.Stderr, linkBin, "clang-offload-bundler"); or.Code != lr.Code || got != want {
			t.Errorf("%q: exit %d, stderr\n%s\nLLVM: exit %d, stderr\n%s", args, or.Code, got, lr.Code, want)
		}
	}
	// Accepted number spellings: LLVM parses with automatic radix.
	for _, v := range []string{"0x10", "020", "16"} {
		args := append(b[:len(b)-1:len(b)-1], "-bundle-align="+v, "-compression-level=0x3", "-compress")
		lr := run(t, dir, nil, l, append(args, "-output=l.bc")...)
		or := run(t, dir, nil, ours(), append(args, "-output=o.bc")...)
		if lr.Code != 0 || or.Code != 0 {
			t.Errorf("-bundle-align=%s: LLVM %v\nours %v", v, lr, or)
		}
	}
}

// firstLineAfterProg is the first stderr line with the program name (and
// the ": " after it) removed, and the name elsewhere in it normalized.
func firstLineAfterProg(stderr string, progs ...string) string {
	line, _, _ := strings.Cut(stderr, "\n")
	if i := strings.Index(line, ": "); i >= 0 {
		line = line[i+2:]
	}
	for _, p := range progs {
		line = strings.ReplaceAll(line, p, "PROG")
	}
	return line
}
