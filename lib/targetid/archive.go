package targetid

import "strings"

// ParseArchiveTarget parses a target of archive unbundling (-type=a
// -unbundle). It is ParseEntryID, except that a processor in the fifth
// field, where the triple's environment goes
// ("openmp-amdgcn-amd-amdhsa-gfx906", three dashes), is read as the target
// ID ("openmp-amdgcn-amd-amdhsa--gfx906"), as LLVM's own test
// clang-offload-bundler.c expects of archive unbundling. LLVM 22.1.8 reads
// it as the environment and drops it, so two such targets become one ID
// and it writes a corrupt archive for them. Raw stays as given.
func ParseArchiveTarget(s string) (EntryID, error) {
	// The fifth field runs to the end: a processor may hold dashes
	// (gfx9-4-generic), a feature ends in one (sramecc-).
	if f := strings.SplitN(s, "-", 5); len(f) == 5 {
		if proc, _, _ := strings.Cut(f[4], ":"); KnownOffloadArch(proc) {
			e, err := ParseEntryID(strings.Join(f[:4], "-") + "--" + f[4])
			e.Raw = s
			return e, err
		}
	}
	return ParseEntryID(s)
}
