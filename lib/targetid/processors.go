//go:generate go test -run TestStarlarkTables -update .

package targetid

import (
	"slices"
	"strings"
)

// offloadArch is one row of clang::OffloadArch's table. For an AMDGPU
// processor (gfx...) it carries TargetParser's target-ID features of that
// processor too, so a processor LLVM adds is one row here.
type offloadArch struct {
	name     string
	features int // featXnack, featSramecc (AMDGPU only)
}

// offloadArchTable is clang::OffloadArch's table in LLVM 22.1.8
// (clang/lib/Basic/OffloadArch.cpp), in table order, with the features of
// TargetParser.cpp's AMDGCNGPUs for the AMDGPU processors. The bundler keeps
// a bundle entry's target ID only if its processor is one of these names.
// The table changes every release; llvm23.go has what LLVM 23 added.
var offloadArchTable = []offloadArch{
	{"sm_20", 0}, {"sm_21", 0},
	{"sm_30", 0}, {"sm_32", 0}, {"sm_35", 0}, {"sm_37", 0},
	{"sm_50", 0}, {"sm_52", 0}, {"sm_53", 0},
	{"sm_60", 0}, {"sm_61", 0}, {"sm_62", 0},
	{"sm_70", 0}, {"sm_72", 0}, {"sm_75", 0},
	{"sm_80", 0}, {"sm_86", 0}, {"sm_87", 0}, {"sm_88", 0}, {"sm_89", 0},
	{"sm_90", 0}, {"sm_90a", 0},
	{"sm_100", 0}, {"sm_100a", 0}, {"sm_101", 0}, {"sm_101a", 0}, {"sm_103", 0}, {"sm_103a", 0},
	{"sm_110", 0}, {"sm_110a", 0},
	{"sm_120", 0}, {"sm_120a", 0}, {"sm_121", 0}, {"sm_121a", 0},
	{"gfx600", 0}, {"gfx601", 0}, {"gfx602", 0},
	{"gfx700", 0}, {"gfx701", 0}, {"gfx702", 0}, {"gfx703", 0}, {"gfx704", 0}, {"gfx705", 0},
	{"gfx801", featXnack}, {"gfx802", 0}, {"gfx803", 0}, {"gfx805", 0}, {"gfx810", featXnack},
	{"gfx9-generic", featXnack},
	{"gfx900", featXnack}, {"gfx902", featXnack}, {"gfx904", featXnack},
	{"gfx906", featXnack | featSramecc}, {"gfx908", featXnack | featSramecc},
	{"gfx909", featXnack}, {"gfx90a", featXnack | featSramecc}, {"gfx90c", featXnack},
	{"gfx9-4-generic", featXnack | featSramecc},
	{"gfx942", featXnack | featSramecc}, {"gfx950", featXnack | featSramecc},
	{"gfx10-1-generic", featXnack},
	{"gfx1010", featXnack}, {"gfx1011", featXnack}, {"gfx1012", featXnack}, {"gfx1013", featXnack},
	{"gfx10-3-generic", 0},
	{"gfx1030", 0}, {"gfx1031", 0}, {"gfx1032", 0}, {"gfx1033", 0}, {"gfx1034", 0}, {"gfx1035", 0},
	{"gfx1036", 0},
	{"gfx11-generic", 0}, {"gfx1100", 0}, {"gfx1101", 0}, {"gfx1102", 0}, {"gfx1103", 0},
	{"gfx1150", 0}, {"gfx1151", 0}, {"gfx1152", 0}, {"gfx1153", 0},
	{"gfx12-generic", 0}, {"gfx1200", 0}, {"gfx1201", 0}, {"gfx1250", 0}, {"gfx1251", 0},
	{"amdgcnspirv", 0}, {"graniterapids", 0}, {"bmg_g21", 0}, {"generic", 0},
}

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

// amdgcnAliases are the alternative names of TargetParser.cpp's AMDGCNGPUs
// table (valid in target IDs, not OffloadArch names), each with its
// processor.
var amdgcnAliases = []struct{ name, canonical string }{
	{"tahiti", "gfx600"}, {"pitcairn", "gfx601"}, {"verde", "gfx601"}, {"hainan", "gfx602"},
	{"oland", "gfx602"}, {"kaveri", "gfx700"}, {"hawaii", "gfx701"}, {"kabini", "gfx703"},
	{"mullins", "gfx703"}, {"bonaire", "gfx704"}, {"carrizo", "gfx801"}, {"iceland", "gfx802"},
	{"tonga", "gfx802"}, {"fiji", "gfx803"}, {"polaris10", "gfx803"}, {"polaris11", "gfx803"},
	{"tongapro", "gfx805"}, {"stoney", "gfx810"},
}

// The tables derived from offloadArchTable and amdgcnAliases (deriveTables):
//   - offloadArchs: its names, in order; offloadArchSet the same as a set;
//   - amdgcnGPUs: LLVM 22's AMDGCNGPUs table (processor, canonical name,
//     target-ID features), its gfx rows each followed by their alternative
//     names. Checked against clang-22's --offload-arch handling.
var (
	offloadArchs   []string
	offloadArchSet map[string]bool
	amdgcnGPUs     []gpu
)

func init() { deriveTables() }

// deriveTables computes the derived tables, so the hand-kept ones hold
// each processor once.
func deriveTables() {
	offloadArchs = make([]string, len(offloadArchTable))
	offloadArchSet = make(map[string]bool, len(offloadArchTable))
	amdgcnGPUs = nil
	for i, a := range offloadArchTable {
		offloadArchs[i] = a.name
		offloadArchSet[a.name] = true
		if !strings.HasPrefix(a.name, "gfx") {
			continue
		}
		amdgcnGPUs = append(amdgcnGPUs, gpu{a.name, a.name, a.features})
		for _, al := range amdgcnAliases {
			if al.canonical == a.name {
				amdgcnGPUs = append(amdgcnGPUs, gpu{al.name, a.name, a.features})
			}
		}
	}
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
