package targetid

import (
	"slices"
	"strings"
)

// llvm23Archs are the rows clang::OffloadArch gained in LLVM 23
// (clang/lib/Basic/OffloadArch.cpp, read at LLVM main and checked against
// Debian's clang-23 23.1.4, which accepts each as --offload-arch), each
// after the name it follows in the table, with TargetParser's target-ID
// features for AMDGPU processors (as in offloadArchTable):
//
//   - NVIDIA's family-specific targets, sm_XYf. Code for sm_100f runs on
//     every GPU of the sm_100 family (sm_100, sm_103); clang defines
//     __CUDA_ARCH_FAMILY_SPECIFIC__ for it as nvcc does.
//   - AMD processors and generic targets (gfx1154, gfx1170-gfx1172,
//     gfx1310 and their generics), which clang-23 accepts in target IDs.
//
// The bundler's table (offloadArchs, KnownOffloadArch) stays LLVM 22's: the
// conformance of the bundle formats is measured against LLVM 22's tools.
var llvm23Archs = []addedArch{
	{offloadArch{"sm_100f", 0}, "sm_100a"},
	{offloadArch{"sm_101f", 0}, "sm_101a"},
	{offloadArch{"sm_103f", 0}, "sm_103a"},
	{offloadArch{"sm_110f", 0}, "sm_110a"},
	{offloadArch{"sm_120f", 0}, "sm_120a"},
	{offloadArch{"sm_121f", 0}, "sm_121a"},
	{offloadArch{"gfx1154", 0}, "gfx1153"},
	{offloadArch{"gfx11-7-generic", 0}, "gfx1154"},
	{offloadArch{"gfx1170", 0}, "gfx11-7-generic"},
	{offloadArch{"gfx1171", 0}, "gfx1170"},
	{offloadArch{"gfx1172", 0}, "gfx1171"},
	{offloadArch{"gfx12-5-generic", 0}, "gfx1201"},
	{offloadArch{"gfx13-generic", 0}, "gfx1251"},
	{offloadArch{"gfx1310", 0}, "gfx13-generic"},
}

// addedArch is an OffloadArch row a later LLVM added, after the name it
// follows in the table.
type addedArch struct {
	offloadArch
	after string
}

// llvm23Features are the AMDGPU processors of LLVM 22 whose target-ID
// features changed in LLVM 23 (gfx1250 and gfx1251 gained sramecc), as
// clang-23 23.1.4 accepts them in target IDs.
var llvm23Features = map[string]int{"gfx1250": featSramecc, "gfx1251": featSramecc}

// AMDGPUFeaturesLLVM returns the target-ID features ("sramecc", "xnack")
// an AMDGCN processor supports in an LLVM major version's TargetParser
// (22's for older), and whether that version knows the processor.
func AMDGPUFeaturesLLVM(major int, processor string) ([]string, bool) {
	g, ok := lookupGPU("amdgcn", processor)
	if major >= 23 {
		if f, changed := llvm23Features[processor]; changed {
			g.features = f
		}
		for _, a := range llvm23Archs {
			if a.name == processor && strings.HasPrefix(a.name, "gfx") {
				g, ok = gpu{a.name, a.name, a.features}, true
			}
		}
	}
	if !ok {
		return nil, false
	}
	var f []string
	if g.features&featSramecc != 0 {
		f = append(f, "sramecc")
	}
	if g.features&featXnack != 0 {
		f = append(f, "xnack")
	}
	return f, true
}

// OffloadArchsLLVM returns clang::OffloadArch's names in table order for an
// LLVM major version: 22's table, or 23's for 23 and later. Older versions
// get 22's.
func OffloadArchsLLVM(major int) []string {
	out := slices.Clone(offloadArchs)
	if major < 23 {
		return out
	}
	for _, a := range llvm23Archs {
		i := slices.Index(out, a.after)
		out = slices.Insert(out, i+1, a.name)
	}
	return out
}

// OffloadArchSince returns the first LLVM major version whose OffloadArch
// table has name: 22 for the names of LLVM 22's table (the oldest these
// tables record), 23 for those LLVM 23 added, 0 for names neither has.
func OffloadArchSince(name string) int {
	if KnownOffloadArch(name) {
		return 22
	}
	for _, a := range llvm23Archs {
		if a.name == name {
			return 23
		}
	}
	return 0
}
