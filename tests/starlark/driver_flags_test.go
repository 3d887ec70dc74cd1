package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
)

// Relocatable device code asks for the new offload driver only of a clang
// that would otherwise use its old one: LLVM 23 uses the new driver for
// every kind by default and LLVM main has removed the old one and its
// choice (docs/compatibility.md, "LLVM 23 and main"), so the rules do not
// depend on the option there. A clang of unknown version gets the flag.
// Both RDC plans and the host compile take it from here.
func TestNewDriverFlagPerLLVM(t *testing.T) {
	g := exec(t, `
load("//rules/private/kinds:common.bzl", "new_driver_flags")
load("//rules/private/kinds:registry.bzl", "KINDS")
load("//rules/private/kinds:families.bzl", "AMDGCN", "NVPTX")

def _by_version(version):
    return new_driver_flags(struct(llvm = None, version = version))

def _by_llvm(major):
    return new_driver_flags(struct(llvm = struct(major = major), version = "ignored"))

versions = {v: _by_version(v) for v in ["16.0.6", "21.1.8", "22.1.8", "23.1.4", "24.0.0", "", "trunk"]}
llvms = {m: _by_llvm(m) for m in [22, 23]}

_gfx906 = struct(name = "gfx906", processor = "gfx906", target_id = "gfx906", family = AMDGCN, ptx = False)
_sm80 = struct(name = "sm_80", processor = "sm_80", target_id = "sm_80", family = NVPTX, ptx = False)
plans = {
    kind + "-" + str(major): KINDS[kind].rdc_plan(struct(llvm = struct(major = major), version = ""), t)[0].flags
    for kind, t in [("hip", _gfx906), ("cuda", _sm80)]
    for major in [22, 23]
}
`)
	want := map[string]string{
		"16.0.6": `["--offload-new-driver"]`,
		"21.1.8": `["--offload-new-driver"]`,
		"22.1.8": `["--offload-new-driver"]`,
		"23.1.4": `[]`,
		"24.0.0": `[]`,
		"":       `["--offload-new-driver"]`,
		"trunk":  `["--offload-new-driver"]`,
	}
	versions := g["versions"].(*starlark.Dict)
	for v, w := range want {
		got, _, _ := versions.Get(starlark.String(v))
		if got.String() != w {
			t.Errorf("clang version %q: %s; want %s", v, got, w)
		}
	}
	llvms := g["llvms"].(*starlark.Dict)
	for m, w := range map[int]string{22: `["--offload-new-driver"]`, 23: `[]`} {
		got, _, _ := llvms.Get(starlark.MakeInt(m))
		if got.String() != w {
			t.Errorf("LLVM %d: %s; want %s", m, got, w)
		}
	}
	plans := g["plans"].(*starlark.Dict)
	for k, w := range map[string]string{
		"hip-22":  `["-c", "-fgpu-rdc", "--offload-new-driver"]`,
		"hip-23":  `["-c", "-fgpu-rdc"]`,
		"cuda-22": `["-c", "-fgpu-rdc", "--offload-new-driver"]`,
		"cuda-23": `["-c", "-fgpu-rdc"]`,
	} {
		got, _, _ := plans.Get(starlark.String(k))
		if got.String() != w {
			t.Errorf("%s RDC plan flags %s; want %s", k, got, w)
		}
	}
}
