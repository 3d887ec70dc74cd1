//go:generate go test -run TestStarlarkTables -update .

package targetid

import (
	"slices"
	"strings"
)

// offloadArchs is clang::OffloadArch's name table in LLVM 22.1.8
// (clang/lib/Basic/OffloadArch.cpp), in table order. The bundler keeps a
// bundle entry's target ID only if its processor is one of these names.
// The table changes every release; keep one per supported LLVM version.
var offloadArchs = []string{
	"sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53",
	"sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87",
	"sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_101", "sm_101a",
	"sm_103", "sm_103a", "sm_110", "sm_110a", "sm_120", "sm_120a", "sm_121", "sm_121a",
	"gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
	"gfx801", "gfx802", "gfx803", "gfx805", "gfx810",
	"gfx9-generic", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c",
	"gfx9-4-generic", "gfx942", "gfx950",
	"gfx10-1-generic", "gfx1010", "gfx1011", "gfx1012", "gfx1013",
	"gfx10-3-generic", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
	"gfx11-generic", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
	"gfx1150", "gfx1151", "gfx1152", "gfx1153",
	"gfx12-generic", "gfx1200", "gfx1201", "gfx1250", "gfx1251",
	"amdgcnspirv", "graniterapids", "bmg_g21", "generic",
}

var offloadArchSet = func() map[string]bool {
	m := make(map[string]bool, len(offloadArchs))
	for _, a := range offloadArchs {
		m[a] = true
	}
	return m
}()

// KnownOffloadArch reports whether name is an LLVM 22 OffloadArch name
// (StringToOffloadArch; exact and case-sensitive, so "GFX906" and AMD
// marketing names such as "tahiti" are not).
func KnownOffloadArch(name string) bool { return offloadArchSet[name] }

// OffloadArchs returns the LLVM 22 OffloadArch names, sorted.
func OffloadArchs() []string {
	s := slices.Clone(offloadArchs)
	slices.Sort(s)
	return s
}

// AMDGPU target-ID features (TargetParser's FEATURE_XNACK / FEATURE_SRAMECC).
const (
	featXnack = 1 << iota
	featSramecc
)

// gpu is one row of TargetParser.cpp's AMDGCNGPUs / R600GPUs tables.
type gpu struct {
	name, canonical string
	features        int
}

// amdgcnGPUs is LLVM 22's AMDGCNGPUs table (processor, canonical name,
// target-ID features). Checked against clang-22's --offload-arch handling.
var amdgcnGPUs = []gpu{
	{"gfx600", "gfx600", 0}, {"tahiti", "gfx600", 0},
	{"gfx601", "gfx601", 0}, {"pitcairn", "gfx601", 0}, {"verde", "gfx601", 0},
	{"gfx602", "gfx602", 0}, {"hainan", "gfx602", 0}, {"oland", "gfx602", 0},
	{"gfx700", "gfx700", 0}, {"kaveri", "gfx700", 0},
	{"gfx701", "gfx701", 0}, {"hawaii", "gfx701", 0},
	{"gfx702", "gfx702", 0},
	{"gfx703", "gfx703", 0}, {"kabini", "gfx703", 0}, {"mullins", "gfx703", 0},
	{"gfx704", "gfx704", 0}, {"bonaire", "gfx704", 0},
	{"gfx705", "gfx705", 0},
	{"gfx801", "gfx801", featXnack}, {"carrizo", "gfx801", featXnack},
	{"gfx802", "gfx802", 0}, {"iceland", "gfx802", 0}, {"tonga", "gfx802", 0},
	{"gfx803", "gfx803", 0}, {"fiji", "gfx803", 0}, {"polaris10", "gfx803", 0}, {"polaris11", "gfx803", 0},
	{"gfx805", "gfx805", 0}, {"tongapro", "gfx805", 0},
	{"gfx810", "gfx810", featXnack}, {"stoney", "gfx810", featXnack},
	{"gfx900", "gfx900", featXnack}, {"gfx902", "gfx902", featXnack}, {"gfx904", "gfx904", featXnack},
	{"gfx906", "gfx906", featXnack | featSramecc}, {"gfx908", "gfx908", featXnack | featSramecc},
	{"gfx909", "gfx909", featXnack}, {"gfx90a", "gfx90a", featXnack | featSramecc},
	{"gfx90c", "gfx90c", featXnack},
	{"gfx942", "gfx942", featXnack | featSramecc}, {"gfx950", "gfx950", featXnack | featSramecc},
	{"gfx1010", "gfx1010", featXnack}, {"gfx1011", "gfx1011", featXnack},
	{"gfx1012", "gfx1012", featXnack}, {"gfx1013", "gfx1013", featXnack},
	{"gfx1030", "gfx1030", 0}, {"gfx1031", "gfx1031", 0}, {"gfx1032", "gfx1032", 0},
	{"gfx1033", "gfx1033", 0}, {"gfx1034", "gfx1034", 0}, {"gfx1035", "gfx1035", 0},
	{"gfx1036", "gfx1036", 0},
	{"gfx1100", "gfx1100", 0}, {"gfx1101", "gfx1101", 0}, {"gfx1102", "gfx1102", 0},
	{"gfx1103", "gfx1103", 0}, {"gfx1150", "gfx1150", 0}, {"gfx1151", "gfx1151", 0},
	{"gfx1152", "gfx1152", 0}, {"gfx1153", "gfx1153", 0},
	{"gfx1200", "gfx1200", 0}, {"gfx1201", "gfx1201", 0},
	{"gfx1250", "gfx1250", 0}, {"gfx1251", "gfx1251", 0},
	{"gfx9-generic", "gfx9-generic", featXnack},
	{"gfx10-1-generic", "gfx10-1-generic", featXnack},
	{"gfx10-3-generic", "gfx10-3-generic", 0},
	{"gfx11-generic", "gfx11-generic", 0},
	{"gfx12-generic", "gfx12-generic", 0},
	{"gfx9-4-generic", "gfx9-4-generic", featXnack | featSramecc},
}

// r600GPUs is TargetParser.cpp's R600GPUs table; none has target-ID features.
var r600GPUs = []gpu{
	{"r600", "r600", 0}, {"rv630", "r600", 0}, {"rv635", "r600", 0}, {"r630", "r630", 0},
	{"rs780", "rs880", 0}, {"rs880", "rs880", 0}, {"rv610", "rs880", 0}, {"rv620", "rs880", 0},
	{"rv670", "rv670", 0}, {"rv710", "rv710", 0}, {"rv730", "rv730", 0}, {"rv740", "rv770", 0},
	{"rv770", "rv770", 0}, {"cedar", "cedar", 0}, {"palm", "cedar", 0}, {"cypress", "cypress", 0},
	{"hemlock", "cypress", 0}, {"juniper", "juniper", 0}, {"redwood", "redwood", 0},
	{"sumo", "sumo", 0}, {"sumo2", "sumo", 0}, {"barts", "barts", 0}, {"caicos", "caicos", 0},
	{"aruba", "cayman", 0}, {"cayman", "cayman", 0}, {"turks", "turks", 0},
}

// lookupGPU is AMDGPU::parseArchAMDGCN / parseArchR600 (exact match).
func lookupGPU(arch, name string) (gpu, bool) {
	table := r600GPUs
	if arch == "amdgcn" {
		table = amdgcnGPUs
	}
	for _, g := range table {
		if g.name == name {
			return g, true
		}
	}
	return gpu{}, false
}

// supportedFeatures is getAllPossibleTargetIDFeatures for a canonical
// processor: xnack/sramecc for AMDGPU processors that have them, nothing for
// other targets.
func supportedFeatures(arch, processor string) []string {
	if arch != "amdgcn" && arch != "r600" {
		return nil
	}
	g, ok := lookupGPU(arch, processor)
	if !ok {
		return nil
	}
	var f []string
	if g.features&featSramecc != 0 {
		f = append(f, "sramecc")
	}
	if g.features&featXnack != 0 {
		f = append(f, "xnack")
	}
	return f
}

// AMDGPUProcessors returns the processor names LLVM 22's TargetParser accepts
// for arch ("amdgcn" or "r600"), alternative names included, sorted.
func AMDGPUProcessors(arch string) []string {
	table := r600GPUs
	if arch == "amdgcn" {
		table = amdgcnGPUs
	} else if arch != "r600" {
		return nil
	}
	names := make([]string, 0, len(table))
	for _, g := range table {
		names = append(names, g.name)
	}
	slices.SortFunc(names, strings.Compare)
	return names
}
