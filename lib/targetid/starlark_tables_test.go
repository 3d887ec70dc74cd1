package targetid

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rules' processor and triple tables (rules/private/targets/processors.bzl,
// triple_tables.bzl) are generated from this package's, so the Starlark and
// Go parsers read the same LLVM 22 tables:
//
//	go generate ./lib/targetid    (runs this test with -update)
//
// Without -update the test fails when a checked-in file is stale.
var starlarkDir = filepath.Join("..", "..", "rules", "private", "targets")

func TestStarlarkTables(t *testing.T) {
	for name, got := range map[string][]byte{
		"processors.bzl":    starlarkProcessors(t),
		"triple_tables.bzl": starlarkTripleTables(),
	} {
		path := filepath.Join(starlarkDir, name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./lib/targetid", path)
		}
	}
}

// starlarkDict writes a dict of a Go map, sorted by key.
func starlarkDict(b *bytes.Buffer, comment, name string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(b, "\n%s\n%s = {\n", comment, name)
	for _, k := range keys {
		fmt.Fprintf(b, "    %q: %q,\n", k, m[k])
	}
	b.WriteString("}\n")
}

// starlarkRules writes a first-match-wins rule list as (match, kind) pairs.
func starlarkRules(b *bytes.Buffer, comment, name string, rules []prefixRule) {
	fmt.Fprintf(b, "\n%s\n%s = [\n", comment, name)
	for _, r := range rules {
		fmt.Fprintf(b, "    (%q, %q),\n", r.match, r.kind)
	}
	b.WriteString("]\n")
}

func starlarkTripleTables() []byte {
	var b bytes.Buffer
	b.WriteString(`"""llvm::Triple's name tables of LLVM 22.1.8, for rules/private/targets/triple.bzl.

Generated from lib/targetid (triple.go, arm.go) by go generate ./lib/targetid;
do not edit. TestStarlarkTables there fails when this file is stale.
"""
`)
	starlarkDict(&b, "# The exact-match part of parseArch's StringSwitch, versioned spellings included.", "ARCH_NAMES", archNames)
	fmt.Fprintf(&b, "\n# Triple::LatestDXILSubArch (dxilv1.%d).\nDXIL_LATEST_MINOR = %d\n", dxilLatestMinor, dxilLatestMinor)
	starlarkDict(&b, "# parseVendor.", "VENDORS", vendorNames)
	starlarkRules(&b, "# parseOS: every case is StartsWith, first match wins.", "OS_RULES", osRules)
	starlarkRules(&b, "# parseEnvironment: every case is StartsWith; order matters.", "ENV_RULES", envRules)
	starlarkRules(&b, "# parseFormat: every case is EndsWith; xcoff before coff.", "FORMAT_RULES", formatRules)
	b.WriteString("\n# ARMTargetParser.def's ARM_ARCH names in order; ARM::parseArch returns the\n" +
		"# first that ends with the (synonym-resolved) canonical name.\nARM_ARCHS = [\n")
	for _, a := range armArchNames {
		fmt.Fprintf(&b, "    %q,\n", a)
	}
	b.WriteString("]\n")
	starlarkDict(&b, "# ARM::getArchSynonym.", "ARM_SYNONYMS", armSynonyms)
	return b.Bytes()
}

func starlarkFeatures(features int) string {
	var f []string
	if features&featSramecc != 0 {
		f = append(f, `"sramecc"`)
	}
	if features&featXnack != 0 {
		f = append(f, `"xnack"`)
	}
	return "[" + strings.Join(f, ", ") + "]"
}

func starlarkProcessors(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString(`"""Processor tables of LLVM 22.1.8 and the names LLVM 23 added, the data behind target validation.

Generated from lib/targetid (processors.go, llvm23.go; the rules' view in
starlark_targets_test.go) by go generate ./lib/targetid;
do not edit. TestStarlarkTables there fails when this file is stale.
"""

# clang::OffloadArch names (clang/lib/Basic/OffloadArch.cpp), in table order.
# The bundler keeps a bundle entry's target ID only if its processor is one
# of these (exact, case-sensitive).
OFFLOAD_ARCHS = [
`)
	for _, a := range offloadArchs {
		fmt.Fprintf(&b, "    %q,\n", a)
	}
	b.WriteString(`]

# NVIDIA names clang::OffloadArch gained after LLVM 22 -> the first LLVM
# major that has them (the family targets sm_XYf, LLVM 23). Targets, not
# bundle entry IDs: the bundler's table above stays LLVM 22's, and a
# toolchain whose clang is older fails at analysis
# (rules/private/sdk_check.bzl). LLVM 23's new AMD processors (gfx1170, ...)
# are not targets yet: a HIP bundle names its processor, and the bundler
# here keeps only LLVM 22's.
OFFLOAD_ARCHS_SINCE = {
`)
	for _, a := range llvm23Archs {
		if strings.HasPrefix(a.name, "sm_") {
			fmt.Fprintf(&b, "    %q: %d,\n", a.name, OffloadArchSince(a.name))
		}
	}
	b.WriteString(`}

# AMDGCNGPUs of llvm/lib/TargetParser/TargetParser.cpp: name -> (canonical
# name, target-ID features the processor supports). Alternative names such as
# "tahiti" are valid for clang::parseTargetID but not OffloadArch names.
AMDGCN_GPUS = {
`)
	for _, g := range amdgcnGPUs {
		fmt.Fprintf(&b, "    %q: (%q, %s),\n", g.name, g.canonical, starlarkFeatures(g.features))
	}
	b.WriteString(`}

# R600GPUs of TargetParser.cpp; none has target-ID features.
R600_GPUS = {
`)
	for _, g := range r600GPUs {
		fmt.Fprintf(&b, "    %q: %q,\n", g.name, g.canonical)
	}
	b.WriteString("}\n")
	starlarkTargets(t, &b)
	return b.Bytes()
}
