package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestHelpMatchesLLVM: each drop-in prints, for --help and --help-list,
// exactly what LLVM 22's tool prints under the same name (options of ours
// that LLVM lacks show only with --help-hidden).
func TestHelpMatchesLLVM(t *testing.T) {
	for _, prog := range []string{"clang-offload-bundler-22", "llvm-offload-wrapper-22",
		"llvm-offload-binary-22", "clang-offload-packager-22"} {
		for _, arg := range []string{"--help", "--help-list", "-help"} {
			llvmtest.Need(t, prog)
			llvm := llvmtest.RunResult(t, t.TempDir(), nil, prog, arg)
			rc, out, errs := wrapRun(t, t.TempDir(), prog, arg)
			if rc != llvm.Code || out != llvm.Stdout || errs != llvm.Stderr {
				t.Errorf("%s %s: rc %d, LLVM %d; stdout differs from LLVM's:\n%s", prog, arg, rc, llvm.Code, lineDiff(llvm.Stdout, out))
			}
		}
	}
}

// TestHelpHiddenListsOurOptions: what --help leaves out is not lost.
func TestHelpHiddenListsOurOptions(t *testing.T) {
	_, out, _ := wrapRun(t, t.TempDir(), "clang-offload-bundler", "--help-hidden")
	for _, want := range []string{"--compression=<zlib|zstd>", "--max-uncompressed-size=<bytes>", "--skip-hash-check"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help-hidden does not list %s:\n%s", want, out)
		}
	}
	_, out, _ = wrapRun(t, t.TempDir(), "clang-offload-bundler", "--help")
	if strings.Contains(out, "--skip-hash-check") {
		t.Errorf("--help lists an option LLVM's does not:\n%s", out)
	}
}

// lineDiff shows the first line where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  LLVM: %s\n  ours: %s", i+1, strings.ReplaceAll(wl, " ", "·"), strings.ReplaceAll(gl, " ", "·"))
		}
	}
	return "(equal)"
}
