package starlark_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// newProcessorRows is what processors.bzl gains when lib/targetid's tables
// get two throwaway rows (gfx1160 with xnack, sm_130 from LLVM 23), written
// by lib/targetid's TestNewProcessorIsOneRow from its generator.
var newProcessorRows = filepath.Join(repoRoot, "lib", "targetid", "testdata", "new_processor.bzl")

// copyRules copies the repository's .bzl files under a temporary root, where a
// test may add a throwaway kind or processor without touching the checkout.
func copyRules(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	err := filepath.WalkDir(filepath.Join(repoRoot, "rules"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".bzl") {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A new processor is a row of lib/targetid's tables and go generate: with
// the generated rows appended to processors.bzl, and no other edit to the
// rules, the new processors resolve like their siblings, with their
// family's checks, and an LLVM 23 processor says so (llvm_since).
func TestNewProcessorIsATableRow(t *testing.T) {
	if _, msg := result(t, call(t, function(t, targetsBzl, "resolve_target"), "gfx1160", "hip")); !strings.Contains(msg, `unknown processor "gfx1160"`) {
		t.Fatalf("gfx1160 is already a target (%q): pick another throwaway name", msg)
	}
	rows, err := os.ReadFile(newProcessorRows)
	if err != nil {
		t.Fatal(err)
	}
	root := copyRules(t)
	procs := filepath.Join(root, "rules", "private", "targets", "processors.bzl")
	data, err := os.ReadFile(procs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(procs, append(data, rows...), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &loader{root: root, cache: map[string]starlark.StringDict{}, predeclared: bzl.predeclared}
	g, err := l.load(targetsBzl)
	if err != nil {
		t.Fatal(err)
	}
	resolve := g["resolve_target"].(starlark.Callable)
	for _, c := range []struct{ spec, kind, want string }{
		{"gfx1160:xnack+", "hip", "gfx1160:xnack+ amdgcn-amd-amdhsa hipv4-amdgcn-amd-amdhsa--gfx1160:xnack+ False"},
		{"gfx1160", "openmp", "gfx1160 amdgcn-amd-amdhsa openmp-amdgcn-amd-amdhsa--gfx1160 False"},
		{"sm_130", "cuda", "sm_130 nvptx64-nvidia-cuda  False"},
		{"sm_130", "openmp", "sm_130 nvptx64-nvidia-cuda openmp-nvptx64-nvidia-cuda-unknown- False"},
		{"compute_130", "cuda", "sm_130 nvptx64-nvidia-cuda  True"},
	} {
		v, msg := result(t, call(t, resolve, c.spec, c.kind))
		if msg != "" {
			t.Errorf("resolve_target(%q, %q): %s", c.spec, c.kind, msg)
			continue
		}
		got := strings.Join([]string{field(t, v, "target_id"), field(t, v, "triple"), field(t, v, "bundle_id"), field(t, v, "ptx")}, " ")
		if got != c.want {
			t.Errorf("resolve_target(%q, %q) = %q, want %q", c.spec, c.kind, got, c.want)
		}
	}
	for _, c := range []struct{ spec, kind, want string }{
		{"gfx1160:sramecc+", "hip", `feature "sramecc" is not supported by gfx1160`},
		{"sm_130", "hip", "NVIDIA processors need kind"},
		{"sm_130:xnack+", "cuda", "only AMD processors take features"},
	} {
		if _, msg := result(t, call(t, resolve, c.spec, c.kind)); !strings.Contains(msg, c.want) {
			t.Errorf("resolve_target(%q, %q) error %q, want one with %q", c.spec, c.kind, msg, c.want)
		}
	}
	since := g["llvm_since"].(starlark.Callable)
	if got, _ := starlark.AsInt32(call(t, since, "sm_130")); got != 23 {
		t.Errorf("llvm_since(sm_130) = %d, want 23", got)
	}
}
