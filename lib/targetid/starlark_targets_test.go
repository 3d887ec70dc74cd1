package targetid

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The rules' target model, generated into rules/private/targets/processors.bzl
// as resolved structs (PROCESSORS, HOST_TRIPLES) so that targets.bzl looks a
// target up instead of deciding by name prefixes what it is. Its inputs are
// this package's LLVM tables (processors.go, llvm23.go) and the two small
// tables below; a processor LLVM adds to a family the rules know is one
// entry in those LLVM tables and go generate.

// deviceFamily is a processor family the rules compile device code for:
// which processors belong to it, its device triple, and whether a target
// ID's features are checked against the processor's (clang does so for
// AMDGPU; the rules refuse features elsewhere). The names are those of
// rules/private/kinds/families.bzl.
type deviceFamily struct {
	name, triple string
	// member reports whether an LLVM 22 or later OffloadArch name (or,
	// for AMDGPU, a TargetParser name) is one of the family's processors.
	member       func(name string) bool
	hasFeatures  bool
	virtualArchs bool // PTX targets compute_XX beside sm_XX
}

var deviceFamilies = []deviceFamily{
	{name: "amdgcn", triple: "amdgcn-amd-amdhsa", hasFeatures: true,
		member: func(n string) bool { _, ok := lookupGPU("amdgcn", n); return ok }},
	{name: "nvptx", triple: "nvptx64-nvidia-cuda", virtualArchs: true,
		member: func(n string) bool { return strings.HasPrefix(n, "sm_") }},
	{name: "spirv", triple: "spirv64-amd-amdhsa",
		member: func(n string) bool { return n == "amdgcnspirv" }},
}

// hostTriples are the host-CPU device triples resolved ahead of time: those
// LLVM's host offload plugin is built for (offload/plugins-nextgen/host)
// and the pc-vendored x86_64 the examples use. Other triples still resolve,
// by parsing them as LLVM does.
var hostTriples = []string{
	"aarch64-unknown-linux-gnu",
	"powerpc64-ibm-linux-gnu",
	"powerpc64le-ibm-linux-gnu",
	"s390x-ibm-linux-gnu",
	"x86_64-pc-linux-gnu",
	"x86_64-unknown-linux-gnu",
}

// rulesTarget is one processor name as a target of the rules, resolved.
type rulesTarget struct {
	name      string // as written: "gfx906", "tahiti", "sm_90a", "compute_90a"
	family    deviceFamily
	processor string   // canonical: "gfx600" for "tahiti", "sm_90a" for "compute_90a"
	features  []string // the target-ID features the processor supports
	since     int      // the LLVM major that added it; 0 for LLVM 22's table
	bundled   bool     // the bundler (LLVM 22's table) keeps it in an entry ID
	ptx       bool     // compute_XX: PTX for the virtual architecture
}

// rulesTargets returns every processor name the rules accept as a target,
// sorted by name: LLVM 22's OffloadArch names and TargetParser's AMDGCN
// names, the NVIDIA names LLVM 23 added, and compute_XX for each sm_XX.
// LLVM 23's new AMD processors are not targets: a HIP bundle names its
// processor, and the bundler here keeps only LLVM 22's.
func rulesTargets() []rulesTarget {
	names := slices.Clone(offloadArchs)
	for _, g := range amdgcnGPUs {
		names = append(names, g.name)
	}
	for _, a := range llvm23Archs {
		if strings.HasPrefix(a.name, "sm_") {
			names = append(names, a.name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var out []rulesTarget
	for _, n := range names {
		i := slices.IndexFunc(deviceFamilies, func(f deviceFamily) bool { return f.member(n) })
		if i < 0 {
			continue // graniterapids, bmg_g21, generic: not AMD or NVIDIA
		}
		f := deviceFamilies[i]
		t := rulesTarget{name: n, family: f, processor: n, since: OffloadArchSince(n)}
		if f.hasFeatures {
			g, _ := lookupGPU("amdgcn", n)
			t.processor = g.canonical
			t.features = supportedFeatures("amdgcn", g.canonical)
			t.since = OffloadArchSince(g.canonical)
		}
		if t.since == 22 {
			t.since = 0
		}
		t.bundled = KnownOffloadArch(t.processor)
		out = append(out, t)
		if f.virtualArchs {
			v := t
			v.name, v.ptx = "compute_"+strings.TrimPrefix(n, "sm_"), true
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b rulesTarget) int { return strings.Compare(a.name, b.name) })
	return out
}

// standardTriple is a triple as a bundle entry ID spells it
// (OffloadTargetInfo::str: amdhsa drops the environment, others have four
// components).
func standardTriple(t *testing.T, triple string) string {
	e, err := ParseEntryID("openmp-" + triple + "-")
	if err != nil {
		t.Fatalf("%s: %v", triple, err)
	}
	return strings.Join([]string{e.Arch, e.Vendor, e.OS, e.Env}, "-")
}

func starlarkBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func starlarkStrings(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// starlarkTargets writes PROCESSORS and HOST_TRIPLES.
func starlarkTargets(t *testing.T, b *bytes.Buffer) {
	b.WriteString(`
# Every processor name a target may give, resolved: family (the name of a
# rules/private/kinds/families.bzl struct), processor (canonical: "tahiti"
# is gfx600, compute_90a is sm_90a), triple and bundle_triple (the device
# triple, and as a bundle entry ID spells it), features (the target-ID
# features the processor supports, checked when takes_features, else a
# feature is refused), llvm_since (the LLVM major that added it; 0 for
# LLVM 22's table), bundled (the bundler's LLVM 22 table has the processor,
# so an entry ID keeps it) and ptx (compute_XX: PTX only).
PROCESSORS = {
`)
	for _, p := range rulesTargets() {
		fmt.Fprintf(b, "    %q: struct(family = %q, processor = %q, triple = %q, bundle_triple = %q, features = %s, takes_features = %s, llvm_since = %d, bundled = %s, ptx = %s),\n",
			p.name, p.family.name, p.processor, p.family.triple, standardTriple(t, p.family.triple),
			starlarkStrings(p.features), starlarkBool(p.family.hasFeatures), p.since, starlarkBool(p.bundled), starlarkBool(p.ptx))
	}
	b.WriteString(`}

# Host-CPU device triples (OpenMP offloading to the host) resolved ahead:
# triple is Triple::normalize's four-component form, bundle_triple as a
# bundle entry ID spells it. targets.bzl parses any other triple.
HOST_TRIPLES = {
`)
	for _, h := range hostTriples {
		e, err := ParseEntryID("openmp-" + h + "-")
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		fmt.Fprintf(b, "    %q: struct(triple = %q, bundle_triple = %q),\n", h, normalize(e.triple.names, 4), standardTriple(t, h))
	}
	b.WriteString("}\n")
}
