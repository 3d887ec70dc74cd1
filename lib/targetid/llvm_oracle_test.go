package targetid

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// These tests use LLVM 22's clang-offload-bundler as the oracle. They build
// bundles from seeded random IDs, read back what LLVM stored, and compare.
// Text bundles (-type=ll) are used where order matters: their -list output
// is in file order, while binary bundles list in hash-table order.

const bundlerTool = "clang-offload-bundler-22"

// oracleSeed shifts the random IDs of the oracle tests; try other values to
// explore more spellings (go test ./lib/targetid -run Oracle -oracleseed=7).
var oracleSeed = flag.Uint64("oracleseed", 0, "offset for the oracle tests' random seeds")

// fillerHost satisfies the bundler's "exactly one host" rule.
const fillerHost = "host-x86_64-unknown-linux-gnu"

// runTool runs a tool and returns stdout, the stderr text after "error: "
// (or all of stderr), and whether it exited 0.
func runTool(t *testing.T, dir, tool string, args ...string) (stdout, errText string, ok bool) {
	t.Helper()
	r := llvmtest.RunResult(t, dir, nil, tool, args...)
	msg := strings.TrimSpace(r.Stderr)
	if _, after, found := strings.Cut(msg, "error: "); found {
		msg = after
	}
	return r.Stdout, msg, r.Code == 0
}

// llvmCrashed tells whether the tool died with LLVM's stack dump. LLVM
// 22.1.8 dereferences an empty optional in getConflictTargetIDCombination
// when a target ID's feature has no sign ("gfx90a:xnack"): undefined
// behaviour, a segfault on some machines and a silent pass on others. Such
// inputs have no oracle answer; ours rejects or keeps them without crashing.
func llvmCrashed(msg string) bool {
	return strings.Contains(msg, "PrintStackTrace") || strings.Contains(msg, "Stack dump")
}

// bundleArgs builds "-targets=... -input=d ..." for ids, with d a file in dir.
func bundleArgs(typ string, ids []string, output string) []string {
	args := []string{"-type=" + typ, "-targets=" + strings.Join(ids, ","), "-output=" + output}
	for range ids {
		args = append(args, "-input=d")
	}
	return args
}

func oracleDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d"), []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// oracleResult is what LLVM made of one -targets entry.
type oracleResult struct {
	Standard string // as listed after bundling, when accepted
	Error    string // the bundler's error, when rejected
	Crashed  bool   // the bundler crashed (see llvmCrashed): no answer
}

// pack groups valid IDs into bundles LLVM accepts whatever the IDs are:
// each "<kind>-<raw triple>" group appears once per bundle (so no target-ID
// conflict can arise) and each bundle has exactly one host entry.
func pack(ids []EntryID, max int) [][]string {
	type bundle struct {
		ids     []string
		keys    map[string]bool
		hasHost bool
		allHIP  bool
	}
	var bs []*bundle
	for _, e := range ids {
		key := e.Kind + "-" + e.TripleString()
		var b *bundle
		for _, c := range bs {
			if !c.keys[key] && !(e.IsHost() && c.hasHost) && len(c.ids) < max {
				b = c
				break
			}
		}
		if b == nil {
			b = &bundle{keys: map[string]bool{}, allHIP: true}
			bs = append(bs, b)
		}
		b.ids = append(b.ids, e.Raw)
		b.keys[key] = true
		b.hasHost = b.hasHost || e.IsHost()
		b.allHIP = b.allHIP && e.IsHIP()
	}
	out := make([][]string, 0, len(bs))
	for _, b := range bs {
		if !b.hasHost && !b.allHIP {
			b.ids = append(b.ids, fillerHost)
		}
		out = append(out, b.ids)
	}
	return out
}

// askLLVM runs the bundler on each ID (raw strings, unique) and returns what
// it made of them. Our own parser only decides how to batch the IDs: if it
// misjudges one, the batch fails and the comparison reports it.
func askLLVM(t *testing.T, raws []string) map[string]oracleResult {
	t.Helper()
	tool := llvmtest.Tool(t, bundlerTool)
	dir := oracleDir(t)
	res := map[string]oracleResult{}
	var valid []EntryID
	for _, s := range raws {
		e, err := ParseEntryID(s)
		switch {
		case err != nil || e.ValidateError() != nil:
			// Errors stop the bundler at the first bad target: one run each.
			_, msg, ok := runTool(t, dir, tool, bundleArgs("ll", []string{fillerHost, s}, "o.ll")...)
			if ok {
				msg = "(accepted)"
			}
			res[s] = oracleResult{Error: msg}
		default:
			valid = append(valid, e)
		}
	}
	batches := pack(valid, 150)
	for i := 0; i < len(batches); i++ {
		ids := batches[i]
		out := fmt.Sprintf("p%d.ll", i)
		if _, msg, ok := runTool(t, dir, tool, bundleArgs("ll", ids, out)...); !ok {
			if llvmCrashed(msg) && len(ids) > 1 {
				// One ID crashes the whole batch: bundle each alone.
				for _, id := range ids {
					e, _ := ParseEntryID(id)
					batches = append(batches, pack([]EntryID{e}, 1)...)
				}
				continue
			}
			if llvmCrashed(msg) {
				res[ids[0]] = oracleResult{Crashed: true}
				continue
			}
			t.Errorf("bundling %q failed: %s", ids, msg)
			continue
		}
		list, msg, ok := runTool(t, dir, tool, "-type=ll", "-list", "-input="+out)
		lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
		if !ok || len(lines) != len(ids) {
			t.Errorf("listing %s: %d lines for %d IDs (%s)", out, len(lines), len(ids), msg)
			continue
		}
		for j, s := range ids {
			res[s] = oracleResult{Standard: lines[j]}
		}
	}
	return res
}

// idGen makes seeded random bundle entry IDs: real offload spellings, their
// misspellings, reordered and empty triple components, and target IDs with
// known, alternative and unknown processors and random feature lists.
type idGen struct{ r *rand.Rand }

func newIDGen(seed uint64) idGen { return idGen{rand.New(rand.NewPCG(seed, 0x7a67))} }

var (
	genKinds      = []string{"host", "openmp", "hip", "hipv4"}
	genBadKinds   = []string{"cuda", "sycl", "HIP", "", "hostx"}
	genArches     = []string{"x86_64", "i686", "i386", "aarch64", "arm64", "arm64e", "armv7", "armv7a", "thumbv7em", "thumbv6m", "armebv7", "ppc64le", "powerpc64", "powerpc64le", "ppc64", "riscv64", "riscv32be", "amdgcn", "amdgcn", "amdgcn", "r600", "nvptx", "nvptx64", "nvptx64", "spirv", "spirv64", "spirv32", "spirv64v1.5", "spir64", "s390x", "sparcv9", "mips64el", "mipsisa64r6el", "loongarch64", "wasm32", "bpf", "dxil", "kalimba3", "xscale", "amd64", "x86_64h"}
	genBadArches  = []string{"AMDGCN", "x86", "gfx906", "", "unknown", "thumbv2", "aarch64eb", "pe", "spirv1.4", "linux"}
	genVendors    = []string{"unknown", "", "", "pc", "apple", "amd", "amd", "nvidia", "ibm", "suse", "intel", "scei", "sie", "meta", "mesa", "w64", "none", "redhat", "foo"}
	genOSes       = []string{"linux", "linux", "", "unknown", "amdhsa", "amdhsa", "amdhsa", "cuda", "cuda", "amdpal", "mesa3d", "windows", "win32", "darwin", "macosx15.0.0", "macos", "ios17", "freebsd14", "linux5", "none", "mingw32", "cygwin", "managarm", "nacl", "shadermodel6.3", "zos", "aix", "vulkan1.3", "uefi", "bar"}
	genEnvs       = []string{"gnu", "gnu", "", "", "", "unknown", "musl", "msvc", "eabi", "eabihf", "gnueabihf", "gnueabi", "android", "androideabi21", "elf", "coff", "macho", "cygnus", "itanium", "mlibc", "gnu_ilp32", "compute", "simulator", "llvm", "baz"}
	genProcs      = append(slices.Clone(offloadArchs), "tahiti", "kaveri", "stoney", "polaris10", "gfx9000", "GFX906", "gfx940", "pvc", "", "gfx906-extra", "sm_100f")
	genFeatNames  = []string{"xnack", "sramecc", "xnack", "sramecc", "foo", ""}
	genFeatSigns  = []string{"+", "-", "+", "-", ""}
	genTripleWord = slices.Concat(genArches, genVendors, genOSes, genEnvs)
)

func (g idGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g idGen) features(maxN int) string {
	var b strings.Builder
	for range g.r.IntN(maxN + 1) {
		b.WriteString(":" + g.pick(genFeatNames) + g.pick(genFeatSigns))
	}
	if g.r.IntN(12) == 0 {
		b.WriteString(":")
	}
	return b.String()
}

func (g idGen) targetID() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return "" // five fields
	case 3:
		return "-"
	}
	return "-" + g.pick(genProcs) + g.features(3)
}

func (g idGen) entryID() string {
	kind := g.pick(genKinds)
	if g.r.IntN(15) == 0 {
		kind = g.pick(genBadKinds)
	}
	arch := g.pick(genArches)
	if g.r.IntN(15) == 0 {
		arch = g.pick(genBadArches)
	}
	c := []string{arch, g.pick(genVendors), g.pick(genOSes), g.pick(genEnvs)}
	switch g.r.IntN(8) {
	case 0: // reordered components
		g.r.Shuffle(3, func(i, j int) { c[i+1], c[j+1] = c[j+1], c[i+1] })
	case 1: // any word anywhere but the arch position
		c[1+g.r.IntN(3)] = g.pick(genTripleWord)
	}
	return kind + "-" + strings.Join(c, "-") + g.targetID()
}

func uniqueIDs(g idGen, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		s := g.entryID()
		if !seen[s] && !strings.Contains(s, ",") {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// boundedSample keeps the tool runs few: each invalid ID costs a run, and
// each valid host ID a bundle of its own (one host per bundle).
func boundedSample(raws []string) (ids []string, bad int) {
	hosts := 0
	for _, s := range raws {
		e, _ := ParseEntryID(s)
		switch {
		case e.ValidateError() != nil:
			if bad++; bad > 50 {
				continue
			}
		case e.IsHost():
			if hosts++; hosts > 12 {
				continue
			}
		}
		ids = append(ids, s)
	}
	return ids, min(bad, 50)
}

// formatErrorIDs have fewer than five fields.
var formatErrorIDs = []string{"hip-amdgcn-amd-amdhsa", "host", "a-b-c-d", "hip-amdgcn-amd"}

func TestLLVMOracleEntryIDs(t *testing.T) {
	llvmtest.Need(t, bundlerTool)
	raws := uniqueIDs(newIDGen(*oracleSeed+1), 400)
	ids, bad := boundedSample(raws)
	ids = append(ids, formatErrorIDs...)
	got := askLLVM(t, ids)
	checkAgainstLLVM(t, ids, got)
	if bad < 10 {
		t.Errorf("generator made only %d invalid IDs; the error path is barely tested", bad)
	}
}

// TestLLVMOracleEntryIDRounds feeds LLVM's standard forms back to it, round
// after round, while they keep changing: LLVM's standardization is not
// idempotent (see llvmRestandardizes), and ours must change where and as
// its does.
func TestLLVMOracleEntryIDRounds(t *testing.T) {
	llvmtest.Need(t, bundlerTool)
	ids, _ := boundedSample(uniqueIDs(newIDGen(*oracleSeed+5), 400))
	ids = append(ids, "hip-amdgcn-gnu-amdhsa-gnu", "hip-amdgcn-amdhsa--gnu", "hip-x86_64-amdhsa--gnu-gfx906",
		"hip-amdgcn-linux-amdhsa-gnu", "openmp-amdgcn-amdhsa-linux-gnu")
	changed := 0
	for round := 1; len(ids) > 0; round++ {
		got := askLLVM(t, ids)
		checkAgainstLLVM(t, ids, got)
		var next []string
		seen := map[string]bool{}
		for _, s := range ids {
			if r, ok := got[s]; ok && !r.Crashed && r.Error == "" && r.Standard != s && !seen[r.Standard] {
				seen[r.Standard] = true
				next = append(next, r.Standard)
			}
		}
		if round >= 2 {
			changed += len(next)
		}
		if round == 4 && len(next) > 0 {
			t.Fatalf("LLVM still changes %d IDs in round 4, e.g. %q", len(next), next[0])
		}
		ids = next
	}
	if changed == 0 {
		t.Error("no standard form changed when bundled again; the rounds test nothing")
	}
}

// checkAgainstLLVM compares ParseEntryID with LLVM's results.
func checkAgainstLLVM(t *testing.T, ids []string, llvm map[string]oracleResult) {
	t.Helper()
	crashed := 0
	defer func() {
		if crashed > 0 {
			t.Logf("%d of %d IDs crash LLVM's bundler (see llvmCrashed); not compared", crashed, len(ids))
		}
		if crashed > len(ids)/4 {
			t.Errorf("%d of %d IDs crash LLVM's bundler: too few compared", crashed, len(ids))
		}
	}()
	for _, s := range ids {
		want, ok := llvm[s]
		if !ok {
			continue // its batch failed and was reported
		}
		if want.Crashed {
			crashed++
			continue
		}
		e, err := ParseEntryID(s)
		switch {
		case err != nil:
			if want.Error != err.Error() {
				t.Errorf("%q: we say %q, LLVM says %+v", s, err, want)
			}
		case want.Error != "":
			if verr := e.ValidateError(); verr == nil || verr.Error() != want.Error {
				t.Errorf("%q: ValidateError() = %v, LLVM says %q", s, verr, want.Error)
			}
		case e.String() != want.Standard:
			t.Errorf("%q: String() = %q, LLVM lists %q", s, e.String(), want.Standard)
		}
	}
}

// The same IDs in a binary bundle (-type=bc) list the same set.
func TestLLVMOracleBinaryList(t *testing.T) {
	tool := llvmtest.Tool(t, bundlerTool)
	dir := oracleDir(t)
	var valid []EntryID
	for _, s := range uniqueIDs(newIDGen(*oracleSeed+2), 120) {
		if e, _ := ParseEntryID(s); e.ValidateError() == nil {
			valid = append(valid, e)
		}
	}
	ids := pack(valid, 150)[0]
	if _, msg, ok := runTool(t, dir, tool, bundleArgs("bc", ids, "o.bc")...); !ok {
		t.Fatalf("bundling: %s", msg)
	}
	list, msg, ok := runTool(t, dir, tool, "-type=bc", "-list", "-input=o.bc")
	if !ok {
		t.Fatalf("listing: %s", msg)
	}
	got := strings.Fields(list)
	var want []string
	for _, s := range ids {
		e, _ := ParseEntryID(s)
		want = append(want, e.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	// The binary writer keeps one entry per standardized ID.
	if want = slices.Compact(want); !slices.Equal(got, want) {
		t.Errorf("bc -list:\n got %q\nwant %q", got, want)
	}
}

// coGen makes IDs as found in bundles and as requested when unbundling.
var (
	coKinds   = []string{"hip", "hipv4", "openmp", "host", "HIPx"}
	coTriples = []string{"amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa-gnu", "amdgcn--amdhsa-", "nvptx64-nvidia-cuda-unknown", "nvptx64-nvidia-cuda-", "x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu", "spirv64-amd-amdhsa-", "r600--amdhsa-"}
	coProcs   = []string{"gfx906", "gfx906", "gfx908", "gfx90a", "gfx1030", "sm_70", "gfx9-generic", "tahiti", "amdgcnspirv", "r600"}
	coFeats   = []string{"xnack+", "xnack-", "sramecc+", "sramecc-", "foo+", "xnack"}
)

func (g idGen) codeObjectID(kinds []string) string {
	s := g.pick(kinds) + "-" + g.pick(coTriples)
	if g.r.IntN(6) == 0 {
		return s // no target ID field
	}
	s += "-" + g.pick(coProcs)
	n := g.r.IntN(3)
	for _, i := range g.r.Perm(len(coFeats))[:n] {
		s += ":" + coFeats[i]
	}
	return s
}

// requestLike derives a valid request from a code-object ID: another kind,
// sometimes another target ID for the same processor.
func (g idGen) requestLike(co string) string {
	kind, rest, _ := strings.Cut(co, "-")
	if !slices.Contains(genKinds, kind) || g.r.IntN(2) == 0 {
		kind = g.pick([]string{"hip", "hipv4", "openmp", "host"})
	}
	f := strings.SplitN(rest, "-", 5)
	if len(f) == 5 && g.r.IntN(2) == 0 {
		proc, _, _ := strings.Cut(f[4], ":")
		f[4] = proc
		for _, i := range g.r.Perm(len(coFeats))[:g.r.IntN(3)] {
			f[4] += ":" + coFeats[i]
		}
	}
	return kind + "-" + strings.Join(f, "-")
}

// writeTextBundle writes a -type=ll bundle by hand so that the file can hold
// IDs the bundler itself would never write (unstandardized, 5-field, ...).
func writeTextBundle(t *testing.T, path string, ids []string) {
	var b strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&b, "\n; __CLANG_OFFLOAD_BUNDLE____START__ %s\nP%d\n; __CLANG_OFFLOAD_BUNDLE____END__ %s\n", id, i, id)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Unbundling picks the first entry, in file order, compatible with the
// request; the payload that comes out tells which one LLVM chose.
func TestLLVMOracleCompatible(t *testing.T) {
	tool := llvmtest.Tool(t, bundlerTool)
	dir := t.TempDir()
	g := newIDGen(*oracleSeed + 3)
	matched, missed, crashed := 0, 0, 0
	for f := range 6 {
		var cos []string
		for range 10 {
			cos = append(cos, g.codeObjectID(coKinds))
		}
		file := filepath.Join(dir, fmt.Sprintf("f%d.ll", f))
		writeTextBundle(t, file, cos)
		for range 7 {
			req := g.codeObjectID(genKinds)
			if g.r.IntN(4) > 0 {
				req = g.requestLike(g.pick(cos))
			}
			r := mustEntry(t, req)
			for _, flag := range []bool{false, true} {
				want := -1
				for i, co := range cos {
					if Compatible(mustEntry(t, co), r, flag) {
						want = i
						break
					}
				}
				args := []string{"-type=ll", "-unbundle", "-targets=" + req, "-input=" + file, "-output=out"}
				if flag {
					args = append(args, "-hip-openmp-compatible")
				}
				os.Remove(filepath.Join(dir, "out"))
				_, msg, ok := runTool(t, dir, tool, args...)
				got := -1
				if ok {
					data, err := os.ReadFile(filepath.Join(dir, "out"))
					if err != nil {
						t.Fatal(err)
					}
					fmt.Sscanf(string(data), "P%d", &got)
				} else if llvmCrashed(msg) {
					crashed++
					continue
				} else if msg != "Can't find bundles for "+r.String() {
					t.Errorf("unbundle %q: unexpected error %q", req, msg)
					continue
				}
				if got != want {
					t.Errorf("file %q, request %q, hip-openmp=%v: LLVM chose entry %d, we chose %d", cos, req, flag, got, want)
				}
				if got >= 0 {
					matched++
				} else {
					missed++
				}
			}
		}
	}
	t.Logf("%d matches, %d misses, %d requests crash LLVM's bundler (see llvmCrashed)", matched, missed, crashed)
	if matched < 5 || missed < 5 {
		t.Errorf("weak test: %d matches, %d misses", matched, missed)
	}
}

// Bundling conflicting target IDs fails naming the pair BundleConflict finds.
func TestLLVMOracleConflict(t *testing.T) {
	tool := llvmtest.Tool(t, bundlerTool)
	dir := oracleDir(t)
	g := newIDGen(*oracleSeed + 4)
	names := []string{"xnack", "sramecc", "a", "b"}
	conflicts, clean, undefined := 0, 0, 0
	for try := 0; conflicts+clean < 30 && try < 200; try++ {
		seen := map[string]bool{}
		var raws []string
		var ids []EntryID
		for range 3 + g.r.IntN(4) {
			s := g.pick([]string{"hip", "hip", "hip", "hipv4"}) + "-amdgcn-amd-amdhsa-" + g.pick([]string{"", "", "", "unknown"})
			if g.r.IntN(8) > 0 {
				s += "-" + g.pick([]string{"gfx906", "gfx906", "gfx906", "gfx908", "tahiti"})
				for range g.r.IntN(3) {
					s += ":" + g.pick(names) + g.pick([]string{"+", "-", "+", "-", "+", "-", ""})
				}
			}
			if !seen[s] {
				seen[s] = true
				raws = append(raws, s)
				ids = append(ids, mustEntry(t, s))
			}
		}
		if firstMalformed(ids) {
			undefined++
			continue
		}
		a, b, want := BundleConflict(ids)
		_, msg, ok := runTool(t, dir, tool, bundleArgs("ll", raws, "o.ll")...)
		switch {
		case ok && want:
			t.Errorf("%q: LLVM accepted, we found conflict %q/%q", raws, a, b)
		case !ok && !want:
			t.Errorf("%q: LLVM rejected (%s), we found no conflict", raws, msg)
		case !ok:
			if w := fmt.Sprintf("Cannot bundle inputs with conflicting targets: '%s' and '%s'", a, b); msg != w {
				t.Errorf("%q:\n LLVM: %s\n  we: %s", raws, msg, w)
			}
			conflicts++
		default:
			clean++
		}
	}
	t.Logf("%d conflicts, %d clean, %d undefined skipped", conflicts, clean, undefined)
	if conflicts < 5 || clean < 5 {
		t.Errorf("weak test: %d conflicts, %d clean (%d undefined skipped)", conflicts, clean, undefined)
	}
}

// firstMalformed reports whether some "<kind>-<triple>" group's first target
// ID (in sorted order) is malformed: LLVM's result is then undefined (see
// Conflict).
func firstMalformed(ids []EntryID) bool {
	first := map[string]string{}
	for _, e := range ids {
		key := e.Kind + "-" + e.TripleString()
		if f, ok := first[key]; !ok || e.TargetID < f {
			first[key] = e.TargetID
		}
	}
	for _, id := range first {
		if _, _, err := splitTargetID(id); err != nil {
			return true
		}
	}
	return false
}
