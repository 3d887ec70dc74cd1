package targetid

import "slices"

// llvm23Archs are the names clang::OffloadArch gained in LLVM 23
// (clang/lib/Basic/OffloadArch.cpp, read at LLVM main and checked against
// Debian's clang-23 23.1.4, which accepts each as --offload-arch): NVIDIA's
// family-specific targets, sm_XYf. Code for sm_100f runs on every GPU of
// the sm_100 family (sm_100, sm_103); clang defines
// __CUDA_ARCH_FAMILY_SPECIFIC__ for it as nvcc does. Each follows the name
// after in the table.
//
// The bundler's table (offloadArchs, KnownOffloadArch) stays LLVM 22's: the
// conformance of the bundle formats is measured against LLVM 22's tools.
var llvm23Archs = []struct{ name, after string }{
	{"sm_100f", "sm_100a"},
	{"sm_101f", "sm_101a"},
	{"sm_103f", "sm_103a"},
	{"sm_110f", "sm_110a"},
	{"sm_120f", "sm_120a"},
	{"sm_121f", "sm_121a"},
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
