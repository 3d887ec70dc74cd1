package bundler_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestLLVMCrashCases: where LLVM 22 crashes or writes corrupt data
// (docs/provenance.md#llvm-crashes), ours gives the right result or exits
// 1 with a clear message, and writes nothing. LLVM is not run on these.
func TestLLVMCrashCases(t *testing.T) {
	t.Parallel()
	dir := cliDir(t)
	good := binaryBundle([]rawEntry{{hostT + "-", []byte("HOSTDATA")}, {g906, []byte("DEV1")}}, 1)
	llvmtest.WriteFile(t, dir, "trunc.bc", good[:len(good)-1])
	llvmtest.WriteFile(t, dir, "trunc-hdr.bc", good[:50])
	fails := []struct {
		name  string
		args  []string
		words []string // the message must contain each (case-insensitive)
	}{
		{"normalized duplicate", []string{"-type=bc", "-targets=" + hostT + "," + g906 + ",hip-amdgcn-amd-amdhsa-unknown-gfx906",
			"-input=h", "-input=d1", "-input=d2", "-output=out"}, []string{"Duplicate targets", "hip-amdgcn-amd-amdhsa-unknown-gfx906"}},
		{"normalized duplicate host", []string{"-type=bc", "-targets=" + hostT + ",host-x86_64-linux-gnu-unknown",
			"-input=h", "-input=d1", "-output=out"}, []string{"Duplicate targets"}},
		{"normalized duplicate unbundle", []string{"-type=bc", "-unbundle", "-targets=" + g906 + ",hip-amdgcn-amd-amdhsa-gnu-gfx906",
			"-input=trunc.bc", "-output=out", "-output=out2"}, []string{"Duplicate targets"}},
		{"bundle-align=0", []string{"-type=bc", "-targets=" + hostT + "," + g906, "-input=h", "-input=d1", "-bundle-align=0", "-output=out"},
			[]string{"align"}},
		{"truncated last payload, unbundle", []string{"-type=bc", "-unbundle", "-targets=" + g906 + "," + hostT, "-input=trunc.bc",
			"-output=out", "-output=out2"}, []string{"trunc.bc"}},
		{"truncated last payload, list", []string{"-type=bc", "-list", "-input=trunc.bc"}, []string{"trunc.bc"}},
		{"truncated header", []string{"-type=bc", "-unbundle", "-targets=" + g906, "-input=trunc-hdr.bc", "-output=out"}, []string{"trunc-hdr.bc"}},
	}
	for _, c := range fails {
		before := llvmtest.DirNames(t, dir)
		r := run(t, dir, nil, ours(), c.args...)
		if r.Code != 1 {
			t.Errorf("%s: want exit 1: %v", c.name, r)
		}
		for _, w := range c.words {
			if !strings.Contains(strings.ToLower(r.Stderr), strings.ToLower(w)) {
				t.Errorf("%s: message %q lacks %q", c.name, r.Stderr, w)
			}
		}
		if after := llvmtest.DirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("%s: files changed: %v -> %v", c.name, before, after)
		}
	}
}

// TestHIPOnlyObjectInputs: HIP-only -type=o whose first input is an ELF
// object (LLVM 22 segfaults) gives the binary bundle LLVM writes for
// non-object inputs; LLVM itself must unbundle it.
func TestHIPOnlyObjectInputs(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	objs := getHostObjects(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "a.hsaco", objs[0])
	llvmtest.WriteFile(t, dir, "b.hsaco", objs[1])
	t1, t2 := "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
	r := run(t, dir, nil, ours(), "-type=o", "-bundle-align=4096", "-targets="+t1+","+t2, "-input=a.hsaco", "-input=b.hsaco", "-output=fat.hipfb")
	if r.Code != 0 {
		t.Fatalf("ours: %v", r)
	}
	want := binaryBundle([]rawEntry{{t1, objs[0]}, {t2, objs[1]}}, 4096)
	sameBytes(t, "HIP-only object bundle", want, llvmtest.ReadFile(t, filepath.Join(dir, "fat.hipfb")))
	lr := run(t, dir, nil, l, "-unbundle", "-type=o", "-targets="+t2+","+t1, "-input=fat.hipfb", "-output=x2", "-output=x1")
	if lr.Code != 0 || !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, "x1")), objs[0]) || !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, "x2")), objs[1]) {
		t.Errorf("LLVM unbundling ours: %v", lr)
	}
}

// TestUnbundleNormalizedDuplicate: two unbundle targets that standardize to
// one ID. LLVM 22 keys its worklist by the standard form, so the second
// output replaces the first: it exits 0 and never writes the first output
// (checked here, so that the README's claim stays true). Ours refuses the
// pair, naming both spellings, and writes nothing.
func TestUnbundleNormalizedDuplicate(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "b.bc", binaryBundle([]rawEntry{{g906, []byte("DEV")}, {hostT + "-", []byte("HOST")}}, 1))
	args := []string{"-type=bc", "-unbundle", "-targets=" + g906 + ",hip-amdgcn-amd-amdhsa-gnu-gfx906", "-input=b.bc"}
	if r := run(t, dir, nil, l, append(args, "-output=l1", "-output=l2")...); r.Code != 0 || exists(filepath.Join(dir, "l1")) || !exists(filepath.Join(dir, "l2")) {
		t.Errorf("LLVM no longer drops the first output silently: %v, l1 written: %v", r, exists(filepath.Join(dir, "l1")))
	}
	r := run(t, dir, nil, ours(), append(args, "-output=o1", "-output=o2")...)
	if r.Code != 1 || !strings.Contains(r.Stderr, "hip-amdgcn-amd-amdhsa-gnu-gfx906") || exists(filepath.Join(dir, "o1")) || exists(filepath.Join(dir, "o2")) {
		t.Errorf("ours: %v", r)
	}
}

// TestArchiveNormalizedDuplicate: the archive form of the case above, as
// LLVM's clang-offload-bundler.c spells it (lines 517-522): a processor
// after a three-dash triple (openmp-amdgcn-amd-amdhsa-gfx906). LLVM 22 reads
// it as the environment and drops it, so both targets standardize to
// openmp-amdgcn-amd-amdhsa--: it exits 0, never writes the first archive,
// and puts each processor-less code object into the second twice (checked
// here, its bug). Ours reads it as the processor, as LLVM's test expects:
// one archive per processor, the bytes LLVM writes for the four-dash
// spelling (...--gfx906), which ours writes alike.
func TestArchiveNormalizedDuplicate(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	g906, g908 := "openmp-amdgcn-amd-amdhsa--gfx906", "openmp-amdgcn-amd-amdhsa--gfx908"
	llvmtest.WriteFile(t, dir, "lib.a", arArchive([]arMember{
		{"a.bc", binaryBundle([]rawEntry{{hostT + "-", []byte("HOSTA")}, {"openmp-amdgcn-amd-amdhsa--", []byte("ANY")}, {g908, []byte("A908")}}, 1)},
		{"b.bc", binaryBundle([]rawEntry{{hostT + "-", []byte("HOSTB")}, {g906, []byte("B906")}}, 1)},
	}))
	// payloads lists an output archive's member contents, "" if it is absent.
	payloads := func(name string) string {
		if !exists(filepath.Join(dir, name)) {
			return ""
		}
		ms, err := arMembers(llvmtest.ReadFile(t, filepath.Join(dir, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var data []string
		for _, m := range ms {
			data = append(data, string(m.data))
		}
		return strings.Join(data, ",")
	}
	threeDash := []string{"-type=a", "-unbundle", "-targets=openmp-amdgcn-amd-amdhsa-gfx906,openmp-amdgcn-amd-amdhsa-gfx908", "-input=lib.a"}
	r := run(t, dir, nil, l, append(threeDash, "-output=l906.a", "-output=l908.a")...)
	if r.Code != 0 || exists(filepath.Join(dir, "l906.a")) || payloads("l908.a") != "ANY,ANY" {
		t.Errorf("LLVM no longer mixes processors in one archive: %v, l906.a written: %v, l908.a holds %q",
			r, exists(filepath.Join(dir, "l906.a")), payloads("l908.a"))
	}
	fourDash := []string{"-type=a", "-unbundle", "-targets=" + g906 + "," + g908, "-input=lib.a"}
	lr := run(t, dir, nil, l, append(fourDash, "-output=f906.a", "-output=f908.a")...)
	or := run(t, dir, nil, ours(), append(fourDash, "-output=p906.a", "-output=p908.a")...)
	tr := run(t, dir, nil, ours(), append(threeDash, "-output=o906.a", "-output=o908.a")...)
	if lr.Code != 0 || or.Code != 0 || tr.Code != 0 {
		t.Fatalf("LLVM four-dash %v\nours four-dash %v\nours three-dash %v", lr, or, tr)
	}
	for _, c := range []struct{ l, want string }{{"f906.a", "B906"}, {"f908.a", "A908"}} {
		if got := payloads(c.l); got != c.want {
			t.Errorf("LLVM's %s holds %s, want %s", c.l, got, c.want)
		}
		want := llvmtest.ReadFile(t, filepath.Join(dir, c.l))
		for _, o := range []string{"p" + c.l[1:], "o" + c.l[1:]} {
			sameBytes(t, o, want, llvmtest.ReadFile(t, filepath.Join(dir, o)))
		}
	}
}

// TestDuplicateEntryID: a binary bundle that holds one ID twice. LLVM 22
// keeps the entries in a StringMap, so the last payload silently wins
// (checked here); ours reports the duplicate with its offset.
func TestDuplicateEntryID(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "dup.bc", binaryBundle([]rawEntry{{g906, []byte("FIRST")}, {hostT + "-", []byte("HOST")}, {g906, []byte("SECOND")}}, 1))
	args := []string{"-type=bc", "-unbundle", "-targets=" + g906, "-input=dup.bc"}
	if r := run(t, dir, nil, l, append(args, "-output=l")...); r.Code != 0 || string(llvmtest.ReadFile(t, filepath.Join(dir, "l"))) != "SECOND" {
		t.Errorf("LLVM no longer takes the last payload silently: %v", r)
	}
	r := run(t, dir, nil, ours(), append(args, "-output=o")...)
	if r.Code != 1 || !strings.Contains(r.Stderr, "duplicate id") || !strings.Contains(r.Stderr, "dup.bc") || exists(filepath.Join(dir, "o")) {
		t.Errorf("ours: %v", r)
	}
}
