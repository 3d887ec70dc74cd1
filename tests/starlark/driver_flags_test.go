package starlark_test

import (
	"strings"
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
	g := execSnippet(t, `
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
    kind + "-" + str(major): KINDS[kind].link.rdc_plan(struct(llvm = struct(major = major), version = ""), t)[0].flags
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

// The relocatable AMDGPU device link splits LTO into 8 partitions as
// clang-linker-wrapper did up to LLVM 22, and links in one from LLVM 23,
// as its wrapper does: with the partitions clang-23's images keep
// __hip_cuid_ symbols the wrapper's lose (measured in the sid chroot: the
// link without them equals clang-linker-wrapper-23's image byte for byte).
func TestAMDGPULTOPartitionsPerLLVM(t *testing.T) {
	g := execSnippet(t, `
load("//rules/private/kinds:families.bzl", "AMDGCN")

_t = struct(name = "gfx906", processor = "gfx906", target_id = "gfx906", triple = "amdgcn-amd-amdhsa")
_rocm = struct(found = True, root = "external/offload_rocm", code_object_version = 0)

flags = {
    major: AMDGCN.device_link_flags(struct(llvm = struct(major = major), version = "", rocm = _rocm), _t, True)
    for major in [22, 23]
}
unknown = AMDGCN.device_link_flags(struct(llvm = None, version = "", rocm = _rocm), _t, True)
`)
	flags := g["flags"].(*starlark.Dict)
	for major, want := range map[int]bool{22: true, 23: false} {
		got, _, _ := flags.Get(starlark.MakeInt(major))
		if has := strings.Contains(got.String(), `"-flto-partitions=8"`); has != want {
			t.Errorf("LLVM %d: device link flags %s; want -flto-partitions=8: %v", major, got, want)
		}
	}
	if !strings.Contains(g["unknown"].String(), `"-flto-partitions=8"`) {
		t.Errorf("a clang of unknown version: %s; want the partitions", g["unknown"])
	}
}

// Whole-program HIP is built as clang's new driver builds it from clang 23
// on (LTO bitcode per target and a device link of it), and as the old
// driver built it (a code object per compile) before 23, for a clang of
// unknown version and for SPIR-V targets, whose link the wrapper does
// otherwise. CUDA and OpenMP are never linked this way.
func TestHIPWholeProgramLinkPerLLVM(t *testing.T) {
	g := execSnippet(t, `
load("//rules/private/kinds:registry.bzl", "KINDS")
load("//rules/private/kinds:families.bzl", "AMDGCN", "SPIRV")

_gfx906 = struct(name = "gfx906", family = AMDGCN)
_spirv = struct(name = "amdgcnspirv", family = SPIRV)

def _link(kind, major, targets):
    link = KINDS[kind].host.whole_program_link(struct(llvm = struct(major = major) if major else None, version = ""), targets)
    return str(link.compile_flags) + " " + link.ext + " " + link.container if link else "None"

links = {
    "hip-22": _link("hip", 22, [_gfx906]),
    "hip-23": _link("hip", 23, [_gfx906]),
    "hip-24": _link("hip", 24, [_gfx906]),
    "hip-unknown": _link("hip", 0, [_gfx906]),
    "hip-23-spirv": _link("hip", 23, [_gfx906, _spirv]),
    "cuda-23": _link("cuda", 23, []),
    "openmp-23": _link("openmp", 23, []),
}
`)
	links := g["links"].(*starlark.Dict)
	linked := `["-c", "-emit-llvm", "-foffload-lto=full"] .lto.o hip_fatbin_linked`
	for k, w := range map[string]string{
		"hip-22":       "None",
		"hip-23":       linked,
		"hip-24":       linked,
		"hip-unknown":  "None",
		"hip-23-spirv": "None",
		"cuda-23":      "None",
		"openmp-23":    "None",
	} {
		got, _, _ := links.Get(starlark.String(k))
		if s, _ := starlark.AsString(got); s != w {
			t.Errorf("%s: whole-program link %s; want %s", k, got, w)
		}
	}
}
