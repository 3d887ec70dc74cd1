package targetid

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// testdata/vectors.json holds LLVM 22's answers for reuse by other parsers
// (the Starlark one). Regenerate with:
//
//	go test ./lib/targetid -run TestVectors -update
//
// Entry IDs are answered by clang-offload-bundler-22 (what -list shows after
// bundling, or the error it prints); target IDs by clang-22's HIP driver
// (the canonical target ID in its bundler command, or its error).
var update = flag.Bool("update", false, "regenerate testdata/vectors.json from the LLVM 22 tools")

const vectorsPath = "testdata/vectors.json"

type vectors struct {
	Comment   string         `json:"comment"`
	LLVM      string         `json:"llvm"`
	EntryIDs  []entryVector  `json:"entry_ids"`
	TargetIDs []targetVector `json:"target_ids"`
}

type entryVector struct {
	ID       string `json:"id"`
	Standard string `json:"standard,omitempty"` // OffloadTargetInfo::str() when accepted
	Error    string `json:"error,omitempty"`    // bundler error text when rejected
}

type targetVector struct {
	Triple    string `json:"triple"`
	ID        string `json:"id"`
	Canonical string `json:"canonical,omitempty"`
	Error     string `json:"error,omitempty"` // "invalid target ID" or "unsupported HIP gpu architecture"
}

func TestVectors(t *testing.T) {
	if *update {
		writeVectors(t)
	}
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.EntryIDs) < 100 || len(v.TargetIDs) < 50 {
		t.Fatalf("vectors.json too small: %d entry IDs, %d target IDs", len(v.EntryIDs), len(v.TargetIDs))
	}
	llvm := map[string]oracleResult{}
	var ids []string
	for _, e := range v.EntryIDs {
		ids = append(ids, e.ID)
		llvm[e.ID] = oracleResult{Standard: e.Standard, Error: e.Error}
	}
	checkAgainstLLVM(t, ids, llvm)
	for _, tv := range v.TargetIDs {
		got, err := ParseTargetID(tv.Triple, tv.ID)
		switch {
		case tv.Error != "" && err == nil:
			t.Errorf("ParseTargetID(%q, %q) = %q, clang says %q", tv.Triple, tv.ID, got.Canonical(), tv.Error)
		case tv.Error == "" && (err != nil || got.Canonical() != tv.Canonical):
			t.Errorf("ParseTargetID(%q, %q) = %q, %v; clang says %q", tv.Triple, tv.ID, got.Canonical(), err, tv.Canonical)
		case tv.Error == "unsupported HIP gpu architecture" && !errors.Is(err, ErrUnknownProcessor) && !errors.Is(err, ErrTargetIDFormat):
			t.Errorf("ParseTargetID(%q, %q): %v; clang rejects the processor", tv.Triple, tv.ID, err)
		}
	}
}

// vectorEntryIDs: the hand-written cases, LLVM's format errors and a seeded
// random sample.
func vectorEntryIDs() []string {
	var ids []string
	for _, tc := range standardizeTests {
		ids = append(ids, tc.in)
	}
	ids = append(ids, "foo-bar-amd-amdhsa--gfx906", "hip-AMDGCN-amd-amdhsa--gfx906", "cuda-nvptx64-nvidia-cuda--sm_70")
	ids = append(ids, formatErrorIDs...)
	sample, _ := boundedSample(uniqueIDs(newIDGen(5), 200))
	ids = append(ids, sample...)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// vectorTargetIDs: every AMDGCN processor name with and without features,
// plus malformed and unknown ones.
func vectorTargetIDs() []string {
	g := newIDGen(6)
	var ids []string
	for _, p := range AMDGPUProcessors("amdgcn") {
		ids = append(ids, p)
		if g.r.IntN(2) == 0 {
			ids = append(ids, p+g.features(2))
		}
	}
	ids = append(ids, "gfx906:xnack+:sramecc-", "gfx90a:sramecc-:xnack+", "gfx906:", "gfx906:xnack+:",
		"gfx906:xnack", "gfx906::xnack+", "gfx906:+", "gfx906:xnack+:xnack-", ":xnack+", "GFX906",
		"gfx940", "gfx1105", "generic", "generic-hsa", "sm_70", "gfx9000", "gfx1030:sramecc+")
	return ids
}

func writeVectors(t *testing.T) {
	llvmtest.Need(t, bundlerTool)
	clang, err := exec.LookPath("clang-22")
	if err != nil {
		t.Fatal("-update needs clang-22 on PATH")
	}
	version, _, _ := runTool(t, ".", bundlerTool, "--version")
	v := vectors{
		Comment: "Answers of LLVM 22 tools; regenerate with: go test ./lib/targetid -run TestVectors -update",
		LLVM:    strings.TrimSpace(version),
	}
	ids := vectorEntryIDs()
	res := askLLVM(t, ids)
	for _, id := range ids {
		r, ok := res[id]
		if !ok {
			t.Fatalf("no LLVM answer for %q", id)
		}
		v.EntryIDs = append(v.EntryIDs, entryVector{ID: id, Standard: r.Standard, Error: r.Error})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.hip"), []byte("__global__ void k() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range vectorTargetIDs() {
		v.TargetIDs = append(v.TargetIDs, askClang(t, clang, dir, id))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep '<' and '>' in LLVM's messages readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vectorsPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// askClang reads the canonical target ID clang-22 puts in its bundler
// command for --offload-arch=id, or the error it reports.
func askClang(t *testing.T, clang, dir, id string) targetVector {
	const triple = "amdgcn-amd-amdhsa"
	// -### prints the commands it would run on stderr.
	cmd := exec.Command(clang, "-x", "hip", "--offload-arch="+id, "-nogpulib", "-nogpuinc",
		"--no-offload-new-driver", "-###", "-c", "x.hip")
	cmd.Dir = dir
	all, _ := cmd.CombinedOutput()
	text := string(all)
	for _, e := range []string{"invalid target ID", "unsupported HIP gpu architecture"} {
		if strings.Contains(text, "error: "+e) {
			return targetVector{Triple: triple, ID: id, Error: e}
		}
	}
	const marker = ",hipv4-amdgcn-amd-amdhsa--"
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("clang-22 --offload-arch=%q: no bundler target in output:\n%s", id, text)
	}
	rest := text[i+len(marker):]
	end := strings.IndexAny(rest, "\" ,")
	if end < 0 {
		end = len(rest)
	}
	return targetVector{Triple: triple, ID: id, Canonical: rest[:end]}
}
