package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// The OpenMP device runtime in LLVM 20's layout (lib/<triple>/libompdevice.a
// and lib/<triple>/libomptarget-nvptx.bc), as clang-21 uses it: NVPTX
// compiles link libomptarget-nvptx.bc whatever the processor, the device
// link of both families takes libompdevice.a after the objects, AMDGPU's
// without LLVM 16's -plugin-opt=mcpu=; the host half names GPUs by
// --offload-arch. LLVM 16's layout keeps its per-processor files and flags.
// LLVM 19's (the same files, with clang-nvlink-wrapper) compiles NVPTX as
// 16 does and links the processor's file again at the NVPTX device link,
// ahead of the objects, through clang-nvlink-wrapper's LTO at -O2 with the
// runtime's PTX feature (as clang-linker-wrapper 19's image, byte for
// byte: tests/bazel/integration/openmp19).
func TestOpenMPDeviceRuntimeLayouts(t *testing.T) {
	g := execSnippet(t, `
load("//rules/private/kinds:openmp.bzl", "OPENMP")
load("//rules/private/kinds:families.bzl", "AMDGCN", "HOST_CPU", "NVPTX")
load("//rules/private/kinds:openmp_device_runtime.bzl", "device_runtime_layout")

def _llvm(major, runtime, libraries, layout):
    return struct(
        major = major,
        version = "%d.1.8" % major,
        clang = struct(dirname = "external/llvm/bin"),
        openmp_device_runtime = runtime,
        openmp_device_libraries = libraries,
        openmp_device_layout = layout,
    )

_llvm21 = _llvm(21, {}, {
    "nvptx64-nvidia-cuda/libompdevice.a": struct(path = "lib/nvptx64-nvidia-cuda/libompdevice.a"),
    "nvptx64-nvidia-cuda/libomptarget-nvptx.bc": struct(path = "lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc"),
    "amdgcn-amd-amdhsa/libompdevice.a": struct(path = "lib/amdgcn-amd-amdhsa/libompdevice.a"),
}, "per-triple")
_llvm16 = _llvm(16, {
    "nvptx-sm_90": struct(path = "lib/libomptarget-nvptx-sm_90.bc"),
    "amdgpu-gfx90a": struct(path = "lib/libomptarget-amdgpu-gfx90a.bc"),
}, {}, "per-processor")
_llvm19 = _llvm(19, {
    "nvptx-sm_70": struct(path = "lib/libomptarget-nvptx-sm_70.bc"),
    "amdgpu-gfx90a": struct(path = "lib/libomptarget-amdgpu-gfx90a.bc"),
}, {}, "per-processor-lto")
_none = _llvm(23, {}, {}, "")

_cuda = struct(found = True, root = "cuda", archs = [], ptxas = "cuda/bin/ptxas", files = None, version = "12.4")
_rocm = struct(found = True, root = "rocm", processors = ["gfx90a"], files = None, version = "6.4")

def _clang(llvm):
    return struct(llvm = llvm, cuda = _cuda, rocm = _rocm, ptxas = "cuda/bin/ptxas", link_flags = [], kind_files = {}, version = "")

_sm70 = struct(name = "sm_70", processor = "sm_70", target_id = "sm_70", family = NVPTX, triple = "nvptx64-nvidia-cuda")
_sm90 = struct(name = "sm_90", processor = "sm_90", target_id = "sm_90", family = NVPTX, triple = "nvptx64-nvidia-cuda")
_gfx90a = struct(name = "gfx90a", processor = "gfx90a", target_id = "gfx90a", family = AMDGCN, triple = "amdgcn-amd-amdhsa")
_cpu = struct(name = "x86_64-pc-linux-gnu", processor = "", target_id = "", family = HOST_CPU, triple = "x86_64-pc-linux-gnu")

def _show(x):
    return " ".join(x) if type(x) == "list" else str(x)

def _link(llvm, target):
    l = device_runtime_layout(llvm).device_link(_clang(llvm), target)
    return _show(l.flags) + " | " + _show(l.trailing)

nv21 = _show(device_runtime_layout(_llvm21).nvptx_compile(_clang(_llvm21), _sm90)[0])
nv16 = _show(device_runtime_layout(_llvm16).nvptx_compile(_clang(_llvm16), _sm90)[0])
link_nv21 = _link(_llvm21, _sm90)
link_amd21 = _link(_llvm21, _gfx90a)
link_amd16 = _link(_llvm16, _gfx90a)
link_nv16 = str(device_runtime_layout(_llvm16).device_link(_clang(_llvm16), _sm90))
host21 = _show(OPENMP.host.flags(_clang(_llvm21), [_gfx90a, _sm90, _cpu], ""))
host16 = _show(OPENMP.host.flags(_clang(_llvm16), [_gfx90a, _sm90, _cpu], ""))
nv19 = _show(device_runtime_layout(_llvm19).nvptx_compile(_clang(_llvm19), _sm70)[0])
link_nv19 = _link(_llvm19, _sm70)
link_amd19 = _link(_llvm19, _gfx90a)
host19 = _show(OPENMP.host.flags(_clang(_llvm19), [_gfx90a, _sm70, _cpu], ""))
no_sm90_19 = OPENMP.link.rdc_plan(_clang(_llvm19), _sm90)[1]
none = OPENMP.link.rdc_plan(_clang(_none), _gfx90a)[1]
no_amd21 = OPENMP.link.rdc_plan(_clang(_llvm(21, {}, {"nvptx64-nvidia-cuda/libompdevice.a": struct(path = "x")}, "per-triple")), _gfx90a)[1]
`)
	for name, want := range map[string][]string{
		"nv21":       {"--libomptarget-nvptx-bc-path=lib/nvptx64-nvidia-cuda/libomptarget-nvptx.bc"},
		"nv16":       {"--libomptarget-nvptx-bc-path=lib/libomptarget-nvptx-sm_90.bc"},
		"link_nv21":  {"--target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path=cuda | -Xlinker lib/nvptx64-nvidia-cuda/libompdevice.a"},
		"link_amd21": {"--target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto -Wl,--no-undefined | -Xlinker lib/amdgcn-amd-amdhsa/libompdevice.a"},
		"link_amd16": {"-nogpulib -flto -Wl,--no-undefined -Wl,-plugin-opt=mcpu=gfx90a | -Wl,lib/libomptarget-amdgpu-gfx90a.bc"},
		"link_nv16":  {"None"},
		"host21":     {"-fopenmp --offload-arch=gfx90a,sm_90 -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -c"},
		"host16":     {"-fopenmp -fopenmp-targets=amdgcn-amd-amdhsa,nvptx64-nvidia-cuda,x86_64-pc-linux-gnu --offload-host-only -c"},
		"nv19":       {"--libomptarget-nvptx-bc-path=lib/libomptarget-nvptx-sm_70.bc"},
		"link_nv19": {"--target=nvptx64-nvidia-cuda -march=sm_70 --cuda-path=cuda -Xlinker --plugin-opt=O2 " +
			"-Xlinker --feature -Xlinker +ptx63 -Xlinker lib/libomptarget-nvptx-sm_70.bc | "},
		"link_amd19": {"--target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto -Wl,--no-undefined | -Xlinker lib/libomptarget-amdgpu-gfx90a.bc"},
		"host19":     {"-fopenmp -fopenmp-targets=amdgcn-amd-amdhsa,nvptx64-nvidia-cuda,x86_64-pc-linux-gnu --offload-host-only -c"},
		"no_sm90_19": {"has no libomptarget-nvptx-sm_90.bc; it has sm_70"},
		"none":       {"has no OpenMP device runtime for amdgcn GPUs", "lib/amdgcn-amd-amdhsa/libompdevice.a from LLVM 20 on", "liboffload-23-dev"},
		"no_amd21":   {"(lib/amdgcn-amd-amdhsa/libompdevice.a)", "install liboffload-21-dev"},
	} {
		got, ok := starlark.AsString(g[name])
		if !ok {
			got = g[name].String()
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", name, got, w)
			}
		}
	}
	for _, name := range []string{"link_amd21", "link_amd19"} {
		if got := g[name].String(); strings.Contains(got, "plugin-opt") || strings.Contains(got, "nogpulib") {
			t.Errorf("%s has LLVM 16's flags: %s", name, got)
		}
	}
}
