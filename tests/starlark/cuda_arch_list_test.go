package starlark_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// __CUDA_ARCH_LIST__ of the rules' per-target compiles (kinds/cuda.bzl's
// target_list_flags) for the targets of 2026: architecture-specific (sm_100a)
// and family (sm_100f) targets count as their number, once, as clang's one
// multi-arch compile defines it; clang-23 (the sid leg) is the oracle.

var archListCases = [][]string{
	{"sm_90a", "sm_100f", "sm_120"},
	{"sm_100", "sm_100a", "sm_100f", "compute_100f"},
	{"sm_121f", "sm_103a", "sm_75"},
	{"compute_120f", "sm_110f"},
}

// archListFlags resolves specs for kind cuda and returns target_list_flags' -D value.
func archListFlags(t *testing.T, specs []string) string {
	t.Helper()
	resolved, msg := result(t, call(t, function(t, targetsBzl, "resolve_targets"), specs, "cuda"))
	if msg != "" {
		t.Fatal(msg)
	}
	g, err := extensionLoader(new([]repoCall)).load("rules/private/kinds/cuda.bzl")
	if err != nil {
		t.Fatal(err)
	}
	phase, _ := g["CUDA"].(starlark.HasAttrs).Attr("compile")
	fn, _ := phase.(starlark.HasAttrs).Attr("target_list_flags")
	flags := call(t, fn.(starlark.Callable), resolved).(*starlark.List)
	for i := 0; i < flags.Len(); i++ {
		if s, _ := starlark.AsString(flags.Index(i)); strings.HasPrefix(s, "-D__CUDA_ARCH_LIST__=") {
			return strings.TrimPrefix(s, "-D__CUDA_ARCH_LIST__=")
		}
	}
	return ""
}

func TestCudaArchList2026(t *testing.T) {
	want := []string{"900,1000,1200", "1000", "750,1030,1210", "1100,1200"}
	for i, specs := range archListCases {
		if got := archListFlags(t, specs); got != want[i] {
			t.Errorf("%q: __CUDA_ARCH_LIST__=%s, want %s", specs, got, want[i])
		}
	}
}

// clang-23's host compile defines the same list for the same --offload-arch values.
func TestCudaArchListClang23(t *testing.T) {
	clang, err := exec.LookPath("clang-23")
	if err != nil {
		if os.Getenv("SID") != "" {
			t.Fatal("clang-23 is not on PATH in the sid leg")
		}
		t.Skip("!!! SKIPPED: clang-23 is not on PATH (the Debian sid leg runs this) !!!")
	}
	for _, specs := range archListCases {
		args := []string{"-x", "cuda", "--cuda-path=/nonexistent", "-nocudainc", "-nocudalib", "--cuda-host-only", "-E", "-dM", "-"}
		for _, s := range specs {
			args = append(args, "--offload-arch="+strings.Replace(s, "compute_", "sm_", 1))
		}
		cmd := exec.Command(clang, args...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("clang-23 %q: %v\n%s", args, err, out)
		}
		var clangList string
		for _, l := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(l, "#define __CUDA_ARCH_LIST__ "); ok {
				clangList = v
			}
		}
		if got := archListFlags(t, specs); got != clangList {
			t.Errorf("%q: the rules define __CUDA_ARCH_LIST__=%s, clang-23 %s", specs, got, clangList)
		}
	}
}
