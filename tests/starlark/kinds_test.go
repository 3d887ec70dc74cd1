package starlark_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Decisions about the offload kind live in rules/private/kinds/*.bzl and
// those about the device family in rules/private/kinds/families.bzl; the
// rest of rules/ asks them. This is the measure of the kinds' separation.
// A hand-written list of kinds (an attribute's values or default) is a
// branch too: a new kind would have to be added to it by hand.
var kindBranch = regexp.MustCompile(`kind *(==|!=) *"(hip|cuda|openmp)"|triple\.startswith\("(amdgcn|nvptx|spirv)|(values|default) = \[?"(hip|cuda|openmp)"`)

func TestNoKindBranchesOutsideKinds(t *testing.T) {
	rules := filepath.Join(repoRoot, "rules")
	kinds := filepath.Join(rules, "private", "kinds")
	files := 0
	err := filepath.WalkDir(rules, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".bzl") {
			return err
		}
		if strings.HasPrefix(path, kinds+string(filepath.Separator)) {
			return nil
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if kindBranch.MatchString(line) {
				t.Errorf("%s:%d branches on the kind or family: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("read only %d .bzl files under %s", files, rules)
	}
}

func structFields(t *testing.T, v starlark.Value) []string {
	t.Helper()
	s, ok := v.(*starlarkstruct.Struct)
	if !ok {
		t.Fatalf("want a struct, got %s", v.Type())
	}
	names := s.AttrNames()
	sort.Strings(names)
	return names
}

// kindFields names a kind's fields and its phases' (compile.cuid ...), sorted.
func kindFields(t *testing.T, v starlark.Value) string {
	t.Helper()
	var names []string
	for _, f := range structFields(t, v) {
		names = append(names, f)
		sub, _ := v.(*starlarkstruct.Struct).Attr(f)
		if phase, ok := sub.(*starlarkstruct.Struct); ok {
			for _, g := range structFields(t, phase) {
				names = append(names, f+"."+g)
			}
		}
	}
	return strings.Join(names, " ")
}

// Every kind answers every question the rules ask (registry.bzl lists
// them), and every family every question of families.bzl.
func TestKindsAndFamiliesAnswerAlike(t *testing.T) {
	g, err := bzl.load("rules/private/kinds/registry.bzl")
	if err != nil {
		t.Fatal(err)
	}
	kinds := g["KINDS"].(*starlark.Dict)
	want := ""
	for _, k := range kinds.Keys() {
		v, _, _ := kinds.Get(k)
		got := kindFields(t, v)
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("kind %s has fields %s; the first kind has %s", k, got, want)
		}
	}
	fam, err := bzl.load("rules/private/kinds/families.bzl")
	if err != nil {
		t.Fatal(err)
	}
	families := fam["FAMILIES"].(*starlark.List)
	want = ""
	for i := 0; i < families.Len(); i++ {
		got := strings.Join(structFields(t, families.Index(i)), " ")
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("family %d has fields %s; the first has %s", i, got, want)
		}
	}
}

// A throwaway fourth kind: a kind file and the registry's lines, in a copy
// of rules/, and the target model takes it: its targets resolve, the
// families' error messages list it, the attribute values include it, and
// it answers every phase's questions as the other kinds do. What it
// touches, all of it: rules/private/kinds/sycl.bzl (new),
// rules/private/kinds/registry.bzl (a load and the _ALL line), and its
// SDK: rules/sdk/oneapi.bzl (new) and a line in rules/sdk/registry.bzl.
func TestFourthKindIsOneFileAndARegistryLine(t *testing.T) {
	root := copyRules(t)
	kinds := filepath.Join(root, "rules", "private", "kinds")
	// The kind file: a table of phases from contract.bzl's constructors,
	// for SPIR-V only, with no bundler entry kind of its own; what it does
	// not spell takes the constructors' defaults.
	sycl := `load(":contract.bzl", "bundle_phase", "compile_phase", "host_phase", "link_phase", "offload_kind", "runtime_phase")

def _host_flags(_clang, _targets, _cuid):
    return ["-fsycl", "--offload-host-only", "-c"]

def _rdc_plan(_clang, _target):
    return struct(flags = ["-c"], ext = ".o", image_kind = "object", files = []), ""

def _runtime(_clang, _runtime):
    return None, "no SYCL runtime in this test"

SYCL = offload_kind(
    name = "sycl",
    families = ["spirv"],
    compile = compile_phase(language_flags = ["-fsycl"]),
    bundle = bundle_phase(),
    host = host_phase(flags = _host_flags),
    link = link_phase(rdc_plan = _rdc_plan, container = "package", image_kind = "object"),
    runtime = runtime_phase(libraries = _runtime, recorded = []),
)
`
	if err := os.WriteFile(filepath.Join(kinds, "sycl.bzl"), []byte(sycl), 0o644); err != nil {
		t.Fatal(err)
	}
	registry := filepath.Join(kinds, "registry.bzl")
	data, err := os.ReadFile(registry)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `load(":openmp.bzl", "OPENMP")`, `load(":openmp.bzl", "OPENMP")
load(":sycl.bzl", "SYCL")`, 1)
	text = strings.Replace(text, "_ALL = [HIP, CUDA, OPENMP]", "_ALL = [HIP, CUDA, OPENMP, SYCL]", 1)
	if text == string(data) {
		t.Fatal("registry.bzl changed its layout; update this test")
	}
	if err := os.WriteFile(registry, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	l := &loader{root: root, cache: map[string]starlark.StringDict{}, predeclared: bzl.predeclared}
	g, err := l.load("rules/private/targets/targets.bzl")
	if err != nil {
		t.Fatal(err)
	}
	resolve := g["resolve_target"].(starlark.Callable)
	v, msg := result(t, call(t, resolve, "amdgcnspirv", "sycl"))
	if msg != "" {
		t.Fatalf("resolve_target(amdgcnspirv, sycl): %s", msg)
	}
	if got := field(t, v, "triple") + " " + field(t, v, "offload_kind") + " " + field(t, v, "bundle_id"); got != "spirv64-amd-amdhsa sycl " {
		t.Errorf("resolve_target(amdgcnspirv, sycl) = %q", got)
	}
	for _, tc := range []struct{ spec, kind, want string }{
		{"gfx906", "sycl", `AMD processors need kind "hip" or "openmp"`},
		{"amdgcnspirv", "cuda", `amdgcnspirv needs kind "hip" or "sycl"`},
		{"gfx906", "fortran", `offload kind "fortran" is not one of hip, cuda, openmp, sycl`},
	} {
		if _, msg := result(t, call(t, resolve, tc.spec, tc.kind)); !strings.Contains(msg, tc.want) {
			t.Errorf("resolve_target(%q, %q): %q, want %q", tc.spec, tc.kind, msg, tc.want)
		}
	}
	reg, err := l.load("rules/private/kinds/registry.bzl")
	if err != nil {
		t.Fatal(err)
	}
	kindsDict := reg["KINDS"].(*starlark.Dict)
	hip, _, _ := kindsDict.Get(starlark.String("hip"))
	sycl4, _, _ := kindsDict.Get(starlark.String("sycl"))
	if got, want := kindFields(t, sycl4), kindFields(t, hip); got != want {
		t.Errorf("the fourth kind has fields %s; hip has %s", got, want)
	}
	if got := reg["KIND_NAMES"].String(); got != `["hip", "cuda", "openmp", "sycl"]` {
		t.Errorf("KIND_NAMES = %s", got)
	}
	// offload_device_archive's kinds: those with a bundler entry kind,
	// which the throwaway kind has not.
	if got := reg["BUNDLE_KIND_NAMES"].String(); got != `["hip", "openmp"]` {
		t.Errorf("BUNDLE_KIND_NAMES = %s", got)
	}

	// Its SDK: one file in rules/sdk and a line in rules/sdk/registry.bzl.
	addThrowawaySDK(t, root)
	checkThrowawaySDK(t, root)
}
