package starlark_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

const targetsBzl = "rules/private/targets/targets.bzl"

// vectorsPath is written by lib/targetid from clang-offload-bundler-22 and
// clang-22 answers (go test ./lib/targetid -run TestVectors -update).
var vectorsPath = filepath.Join(repoRoot, "lib", "targetid", "testdata", "vectors.json")

type vectorFile struct {
	LLVM     string `json:"llvm"`
	EntryIDs []struct {
		ID       string `json:"id"`
		Standard string `json:"standard"`
		Error    string `json:"error"`
	} `json:"entry_ids"`
	TargetIDs []struct {
		Triple    string `json:"triple"`
		ID        string `json:"id"`
		Canonical string `json:"canonical"`
		Error     string `json:"error"`
	} `json:"target_ids"`
}

// entryID returns what targets.bzl makes of a bundle entry ID: its
// standardized form, or the bundler's error text.
func entryID(t *testing.T, id string) (standard, errText string) {
	t.Helper()
	v, err := result(t, call(t, function(t, targetsBzl, "parse_entry_id"), id))
	if err != "" {
		return "", err
	}
	if e, _ := starlark.AsString(call(t, function(t, targetsBzl, "entry_id_error"), v)); e != "" {
		return "", e
	}
	return field(t, v, "id"), ""
}

// hipTarget is what the rules make of --offload-arch-style input for HIP:
// the canonical target ID, or an error.
func hipTarget(t *testing.T, id string) (canonical, errText string) {
	t.Helper()
	v, err := result(t, call(t, function(t, targetsBzl, "resolve_target"), id, "hip"))
	if err != "" {
		return "", err
	}
	return field(t, v, "target_id"), ""
}

// TestLLVMVectors checks targets.bzl against the LLVM 22 answers recorded by
// lib/targetid, so the Starlark and Go parsers cannot drift apart.
func TestLLVMVectors(t *testing.T) {
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.EntryIDs) == 0 || len(v.TargetIDs) == 0 {
		t.Fatalf("%s has no vectors", vectorsPath)
	}
	for _, e := range v.EntryIDs {
		std, msg := entryID(t, e.ID)
		switch {
		case e.Error != "" && msg == "":
			t.Errorf("entry ID %q: we standardize to %q, LLVM rejects it: %s", e.ID, std, e.Error)
		case e.Error != "" && !strings.HasSuffix(e.Error, msg):
			t.Errorf("entry ID %q: we say %q, LLVM says %q", e.ID, msg, e.Error)
		case e.Error == "" && std != e.Standard:
			t.Errorf("entry ID %q: we standardize to %q (%s), LLVM lists %q", e.ID, std, msg, e.Standard)
		}
	}
	for _, tv := range v.TargetIDs {
		got, msg := hipTarget(t, tv.ID)
		switch {
		case tv.Error != "" && msg == "":
			t.Errorf("target %q: we accept it as %q, clang says %q", tv.ID, got, tv.Error)
		case tv.Error == "" && got != tv.Canonical:
			t.Errorf("target %q: we make %q (%s), clang makes %q", tv.ID, got, msg, tv.Canonical)
		}
	}
	t.Logf("%d entry IDs and %d target IDs agree with %s", len(v.EntryIDs), len(v.TargetIDs), v.LLVM)
}

// Hand-derived from clang-offload-bundler 22.1.8's standardization of
// entry IDs (docs/provenance.md#entry-ids says how to reproduce each row).
func TestEntryIDStandardization(t *testing.T) {
	tests := []struct{ in, want string }{
		{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"},
		{"host-x86_64-linux-gnu-unknown", "host-x86_64-unknown-linux-gnu-"},
		{"host-x86_64-apple-macosx15.0.0-", "host-x86_64-apple-macosx15.0.0-unknown-"},
		{"host-x86_64-unknown-linux-gnu-gfx906", "host-x86_64-unknown-linux-gnu-gfx906"},
		{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
		{"hip-amdgcn-amd-amdhsa-gnu-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
		{"hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"},
		{"hip-amdgcn--amdhsa--gfx906", "hip-amdgcn-unknown-amdhsa--gfx906"},
		{"hip-amdgcn-amd---gfx906", "hip-amdgcn-amd-unknown-unknown-gfx906"},
		{"hip-spirv64-amd-amdhsa-unknown-amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv"},
		{"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70"},
		{"openmp-nvptx64-nvidia-cuda-sm_70", "openmp-nvptx64-nvidia-cuda-sm_70-"},
		{"hip-amdgcn-amd-amdhsa--tahiti", "hip-amdgcn-amd-amdhsa--"},
		{"hip-amdgcn-amd-amdhsa--gfx9-4-generic", "hip-amdgcn-amd-amdhsa--gfx9-4-generic"},
		// The bundler neither validates nor reorders features.
		{"hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-", "hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-"},
		{"hip-amdgcn-amd-amdhsa--sm_90a", "hip-amdgcn-amd-amdhsa--sm_90a"},
	}
	for _, tc := range tests {
		got, msg := entryID(t, tc.in)
		if msg != "" || got != tc.want {
			t.Errorf("parse_entry_id(%q) = %q, %q; want %q", tc.in, got, msg, tc.want)
		}
	}
}

func TestEntryIDErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hip-amdgcn-amd-amdhsa", "Targets need to follow the format"},
		{"cuda-nvptx64-nvidia-cuda--sm_70", "invalid target 'cuda-nvptx64-nvidia-cuda--sm_70', unknown offloading kind 'cuda'"},
		{"hip-AMDGCN-amd-amdhsa--gfx906", "invalid target 'hip-AMDGCN-amd-amdhsa--gfx906', unknown target triple 'AMDGCN-amd-amdhsa-'"},
		{"foo-bar-amd-amdhsa--gfx906", "invalid target 'foo-bar-amd-amdhsa--gfx906', unknown offloading kind 'foo', unknown target triple 'bar-amd-amdhsa-'"},
	}
	for _, tc := range tests {
		got, msg := entryID(t, tc.in)
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("parse_entry_id(%q) = %q, %q; want error %q", tc.in, got, msg, tc.want)
		}
	}
}

// What clang-22 -x hip --offload-arch=<id> answers (run by hand with
// clang 22.1.8; TestLLVMVectors re-checks the vectors file live).
func TestHIPTargetIDs(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{in: "gfx906", want: "gfx906"},
		{in: "gfx90a:xnack+", want: "gfx90a:xnack+"},
		{in: "gfx906:xnack+:sramecc-", want: "gfx906:sramecc-:xnack+"},
		{in: "tahiti", want: "gfx600"},
		{in: "gfx1100", want: "gfx1100"},
		{in: "gfx11-generic", want: "gfx11-generic"},
		{in: "gfx906:", want: "gfx906"},
		{in: "gfx1100:xnack+", wantErr: `feature "xnack" is not supported by gfx1100`},
		{in: "gfx906:xnack", wantErr: "needs a + or - sign"},
		{in: "gfx906:xnack+:xnack-", wantErr: "given more than once"},
		{in: "gfx906:foo+", wantErr: `feature "foo" is not supported`},
		{in: "sm_70", wantErr: "NVIDIA processors need kind"},
		{in: "GFX906", wantErr: "unknown processor"},
		{in: "gfx940", wantErr: "unknown processor"},
	}
	for _, tc := range tests {
		got, msg := hipTarget(t, tc.in)
		if tc.wantErr != "" {
			if !strings.Contains(msg, tc.wantErr) {
				t.Errorf("resolve_target(%q) = %q, %q; want error containing %q", tc.in, got, msg, tc.wantErr)
			}
			continue
		}
		if msg != "" || got != tc.want {
			t.Errorf("resolve_target(%q) = %q, %q; want %q", tc.in, got, msg, tc.want)
		}
	}
}

// A typo fails at analysis time with a suggestion and the known list.
func TestUnknownProcessorMessage(t *testing.T) {
	_, msg := hipTarget(t, "gfx9O8")
	for _, want := range []string{`unknown processor "gfx9O8"`, `did you mean "gfx908"?`, "known processors: ", "gfx906, gfx908", "sm_90a"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestResolveTarget(t *testing.T) {
	tests := []struct {
		spec, kind                               string
		name, triple, bundleID, processor, isPTX string
	}{
		{"gfx90a:xnack+", "hip", "gfx90a:xnack+", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx90a", "False"},
		{"gfx906", "openmp", "gfx906", "amdgcn-amd-amdhsa", "openmp-amdgcn-amd-amdhsa--gfx906", "gfx906", "False"},
		{"sm_70", "openmp", "sm_70", "nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-sm_70", "sm_70", "False"},
		{"sm_90", "cuda", "sm_90", "nvptx64-nvidia-cuda", "", "sm_90", "False"},
		{"compute_90", "cuda", "compute_90", "nvptx64-nvidia-cuda", "", "sm_90", "True"},
		{"amdgcnspirv", "hip", "amdgcnspirv", "spirv64-amd-amdhsa", "hipv4-spirv64-amd-amdhsa--amdgcnspirv", "amdgcnspirv", "False"},
		{"x86_64-pc-linux-gnu", "openmp", "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu", "openmp-x86_64-pc-linux-gnu-", "", "False"},
		{"x86_64-linux-gnu", "openmp", "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", "openmp-x86_64-unknown-linux-gnu-", "", "False"},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack-:sramecc+", "hip", "gfx906:sramecc+:xnack-", "amdgcn-amd-amdhsa", "hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-", "gfx906", "False"},
		// The GPUs of 2026's SDKs: CUDA 12.8+'s Blackwell targets, LLVM 23's
		// family targets (sm_100f: every sm_10x), ROCm 6.4's processors and
		// generic targets.
		{"sm_100f", "cuda", "sm_100f", "nvptx64-nvidia-cuda", "", "sm_100f", "False"},
		{"sm_121f", "cuda", "sm_121f", "nvptx64-nvidia-cuda", "", "sm_121f", "False"},
		{"compute_120f", "cuda", "compute_120f", "nvptx64-nvidia-cuda", "", "sm_120f", "True"},
		{"sm_103a", "cuda", "sm_103a", "nvptx64-nvidia-cuda", "", "sm_103a", "False"},
		{"sm_110", "cuda", "sm_110", "nvptx64-nvidia-cuda", "", "sm_110", "False"},
		{"sm_120a", "openmp", "sm_120a", "nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-sm_120a", "sm_120a", "False"},
		{"gfx942:sramecc+:xnack-", "hip", "gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942", "False"},
		{"gfx950", "hip", "gfx950", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx950", "gfx950", "False"},
		{"gfx1201", "hip", "gfx1201", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx1201", "gfx1201", "False"},
		{"gfx9-4-generic:xnack+", "hip", "gfx9-4-generic:xnack+", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+", "gfx9-4-generic", "False"},
		{"gfx10-3-generic", "openmp", "gfx10-3-generic", "amdgcn-amd-amdhsa", "openmp-amdgcn-amd-amdhsa--gfx10-3-generic", "gfx10-3-generic", "False"},
		{"gfx12-generic", "hip", "gfx12-generic", "amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx12-generic", "gfx12-generic", "False"},
	}
	fn := function(t, targetsBzl, "resolve_target")
	for _, tc := range tests {
		v, msg := result(t, call(t, fn, tc.spec, tc.kind))
		if msg != "" {
			t.Errorf("resolve_target(%q, %q): %s", tc.spec, tc.kind, msg)
			continue
		}
		got := []string{field(t, v, "name"), field(t, v, "triple"), field(t, v, "bundle_id"), field(t, v, "processor"), field(t, v, "ptx")}
		want := []string{tc.name, tc.triple, tc.bundleID, tc.processor, tc.isPTX}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("resolve_target(%q, %q) = %q, want %q", tc.spec, tc.kind, got, want)
		}
	}
}

func TestResolveTargetsList(t *testing.T) {
	fn := function(t, targetsBzl, "resolve_targets")
	v, msg := result(t, call(t, fn, []string{"gfx1100", "gfx90a:xnack+", "gfx906"}, "hip"))
	if msg != "" {
		t.Fatal(msg)
	}
	var names []string
	list := v.(*starlark.List)
	for i := 0; i < list.Len(); i++ {
		names = append(names, field(t, list.Index(i), "name"))
	}
	// Sorted by bundle ID, so the bundle's bytes do not depend on the
	// order the BUILD file lists targets in.
	if got, want := strings.Join(names, ","), "gfx1100,gfx906,gfx90a:xnack+"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	for _, tc := range []struct {
		specs   []string
		kind    string
		wantErr string
	}{
		{[]string{"gfx906", "hipv4-amdgcn-amd-amdhsa-unknown-gfx906"}, "hip", "are the same target"},
		{[]string{"gfx906:xnack+:sramecc-", "gfx906:sramecc-:xnack+"}, "hip", "are the same target"},
		{[]string{"gfx906", "gfx906:xnack+"}, "hip", `conflicting targets "gfx906" and "gfx906:xnack+"`},
		{[]string{"gfx906:xnack-", "gfx906:xnack+"}, "hip", ""},
		{[]string{"sm_70", "compute_70"}, "cuda", ""},
		{[]string{"compute_70"}, "hip", "PTX-only targets need kind"},
		{[]string{"gfx906"}, "sycl", `offload kind "sycl" is not one of`},
	} {
		_, msg := result(t, call(t, fn, tc.specs, tc.kind))
		if (tc.wantErr == "") != (msg == "") || !strings.Contains(msg, tc.wantErr) {
			t.Errorf("resolve_targets(%q, %q) error %q, want %q", tc.specs, tc.kind, msg, tc.wantErr)
		}
	}
}

// The triple port against LLVM's documented normalizations
// (llvm/unittests/TargetParser/TripleTest.cpp, Normalization).
func TestNormalizeTriple(t *testing.T) {
	fn := function(t, "rules/private/targets/triple.bzl", "normalize_triple")
	tests := []struct {
		in   string
		form int
		want string
	}{
		{"x86_64-linux-gnu", 4, "x86_64-unknown-linux-gnu"},
		{"x86_64-pc-linux-gnu", 4, "x86_64-pc-linux-gnu"},
		{"amdgcn-amd-amdhsa-", 3, "amdgcn-amd-amdhsa"},
		{"nvptx64-nvidia-cuda", 4, "nvptx64-nvidia-cuda-unknown"},
		{"a-b-i386", 0, "i386-a-b"},
		{"pc-a", 0, "unknown-pc-a"},
		{"i386-mingw32", 0, "i386-unknown-windows-gnu"},
		{"x86_64-pc-win32", 0, "x86_64-pc-windows-msvc"},
		{"x86_64-pc-windows-elf", 0, "x86_64-pc-windows-elf"},
		{"arm-none-eabi", 0, "arm-unknown-none-eabi"},
		{"armv7-linux-gnueabihf", 0, "armv7-unknown-linux-gnueabihf"},
	}
	for _, tc := range tests {
		got, _ := starlark.AsString(call(t, fn, strings.Split(tc.in, "-"), tc.form))
		if got != tc.want {
			t.Errorf("normalize_triple(%q, %d) = %q, want %q", tc.in, tc.form, got, tc.want)
		}
	}
}

// The rules build the bundle entry IDs of their device triples from the
// generated standard triples; the bundler's standardization (parse_entry_id)
// must give the same ID for every processor, kind and entry kind.
func TestBundleIDsBuiltAsParsed(t *testing.T) {
	g, err := bzl.load(targetsBzl)
	if err != nil {
		t.Fatal(err)
	}
	known, _ := g["KNOWN_PROCESSORS"].(*starlark.List)
	p, err := bzl.load("rules/private/targets/processors.bzl")
	if err != nil {
		t.Fatal(err)
	}
	var procs []string
	for i := 0; i < known.Len(); i++ {
		proc, _ := starlark.AsString(known.Index(i))
		procs = append(procs, proc)
	}
	// The generated rows: alternative names (tahiti) and compute_XX too.
	for _, k := range p["PROCESSORS"].(*starlark.Dict).Keys() {
		proc, _ := starlark.AsString(k)
		procs = append(procs, proc)
	}
	resolve := function(t, targetsBzl, "resolve_target")
	parse := function(t, targetsBzl, "parse_entry_id")
	checked := 0
	for _, proc := range procs {
		for _, spec := range []string{proc, proc + ":xnack+", proc + ":sramecc-:xnack+"} {
			for _, kind := range []string{"hip", "cuda", "openmp"} {
				for _, codeObject := range []bool{true, false} {
					v, msg := result(t, call(t, resolve, spec, kind, codeObject))
					if msg != "" || field(t, v, "bundle_id") == "" {
						continue
					}
					raw := field(t, v, "bundle_kind") + "-" + field(t, v, "triple") + "-" + field(t, v, "target_id")
					if strings.Count(field(t, v, "triple"), "-") == 2 {
						raw = field(t, v, "bundle_kind") + "-" + field(t, v, "triple") + "--" + field(t, v, "target_id")
					}
					e, msg := result(t, call(t, parse, raw))
					if msg != "" {
						t.Fatalf("parse_entry_id(%q): %s", raw, msg)
					}
					if got, want := field(t, v, "bundle_id"), field(t, e, "id"); got != want {
						t.Errorf("resolve_target(%q, %q, %v): bundle ID %q, the bundler's standard form %q", spec, kind, codeObject, got, want)
					}
					checked++
				}
			}
		}
	}
	// The host-CPU triples resolved ahead: triple as Triple::normalize
	// makes it, bundle ID as the bundler standardizes it.
	normalize := function(t, "rules/private/targets/triple.bzl", "normalize_triple")
	for _, k := range p["HOST_TRIPLES"].(*starlark.Dict).Keys() {
		spec, _ := starlark.AsString(k)
		v, msg := result(t, call(t, resolve, spec, "openmp"))
		if msg != "" {
			t.Fatalf("resolve_target(%q, openmp): %s", spec, msg)
		}
		if got, want := field(t, v, "triple"), call(t, normalize, strings.Split(spec, "-"), 4).(starlark.String).GoString(); got != want {
			t.Errorf("resolve_target(%q): triple %q, normalize_triple gives %q", spec, got, want)
		}
		e, msg := result(t, call(t, parse, "openmp-"+spec+"-"))
		if msg != "" {
			t.Fatalf("parse_entry_id(%q): %s", spec, msg)
		}
		if got, want := field(t, v, "bundle_id"), field(t, e, "id"); got != want {
			t.Errorf("resolve_target(%q, openmp): bundle ID %q, the bundler's standard form %q", spec, got, want)
		}
		checked++
	}
	if checked < 300 {
		t.Errorf("checked only %d bundle IDs", checked)
	}
	t.Logf("%d bundle IDs built as the bundler standardizes them", checked)
}

// Every target the issue of 2026's SDKs names resolves for its kind, and
// the family targets of LLVM 23 are only NVIDIA's: what the tables know.
func TestTargets2026(t *testing.T) {
	fn := function(t, targetsBzl, "resolve_target")
	for _, spec := range []string{"sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f", "sm_110", "sm_110f",
		"sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f", "compute_100f", "compute_121a"} {
		if _, msg := result(t, call(t, fn, spec, "cuda")); msg != "" {
			t.Errorf("resolve_target(%q, cuda): %s", spec, msg)
		}
	}
	for _, spec := range []string{"gfx942", "gfx950", "gfx1200", "gfx1201", "gfx9-generic", "gfx9-4-generic",
		"gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx12-generic", "gfx950:xnack-"} {
		if _, msg := result(t, call(t, fn, spec, "hip")); msg != "" {
			t.Errorf("resolve_target(%q, hip): %s", spec, msg)
		}
	}
	for _, c := range []struct{ spec, kind, want string }{
		{"sm_100f", "hip", "target \"sm_100f\""},
		{"sm_100f:xnack+", "cuda", "only AMD processors take features"},
		{"sm_99f", "cuda", `unknown processor "sm_99f"`},
		{"compute_99f", "cuda", `unknown processor "compute_99f"`},
		{"gfx1200:xnack+", "hip", "feature \"xnack\" is not supported by gfx1200"},
	} {
		if _, msg := result(t, call(t, fn, c.spec, c.kind)); !strings.Contains(msg, c.want) {
			t.Errorf("resolve_target(%q, %q) error %q, want one with %q", c.spec, c.kind, msg, c.want)
		}
	}
	since := function(t, targetsBzl, "llvm_since")
	for spec, want := range map[string]int{"sm_100f": 23, "sm_120f": 23, "sm_100a": 0, "gfx1201": 0} {
		if got, _ := starlark.AsInt32(call(t, since, spec)); got != want {
			t.Errorf("llvm_since(%q) = %d, want %d", spec, got, want)
		}
	}
}

// A target LLVM 23 added fails at analysis with a clang 22 toolchain,
// naming the version and the fix; clang 23, or a clang whose version the
// toolchain does not know, passes.
func TestClangTooOldForTarget(t *testing.T) {
	resolve := function(t, targetsBzl, "resolve_targets")
	check := function(t, "rules/private/sdk_check.bzl", "clang_error")
	targets, msg := result(t, call(t, resolve, []string{"sm_90a", "sm_100f"}, "cuda"))
	if msg != "" {
		t.Fatal(msg)
	}
	s := func(d starlark.StringDict) starlark.Value {
		return starlarkstruct.FromStringDict(starlarkstruct.Default, d)
	}
	for _, c := range []struct {
		clang starlark.Value
		want  string
	}{
		{s(starlark.StringDict{"llvm": starlark.None, "version": starlark.String("22")}),
			`target "sm_100f": clang 22 does not know sm_100f (LLVM 23 added it); use a clang 23 or later (offload.llvm(version = "23")`},
		{s(starlark.StringDict{"llvm": s(starlark.StringDict{"major": starlark.MakeInt(22)}), "version": starlark.String("")}), "clang 22 does not know sm_100f"},
		{s(starlark.StringDict{"llvm": s(starlark.StringDict{"major": starlark.MakeInt(23)}), "version": starlark.String("23")}), ""},
		{s(starlark.StringDict{"llvm": starlark.None, "version": starlark.String("23.1.4")}), ""},
		{s(starlark.StringDict{"llvm": starlark.None, "version": starlark.String("")}), ""},
	} {
		got, _ := starlark.AsString(call(t, check, c.clang, targets))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("clang_error(%s) = %q, want %q", c.clang, got, c.want)
		}
	}
}
