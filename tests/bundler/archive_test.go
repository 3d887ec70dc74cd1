package bundler_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// childNames are archive member names: short and long (name table), with
// and without an extension.
var childNames = []string{"a.o", "kern.bc", "noext", "a_rather_long_member_name.o", "x.cubin", "lib-part.a.o", "z"}

// archiveChild makes one member of a heterogeneous archive: a binary
// bundle written by hand, one compressed by LLVM (zstd) or by hand (zlib),
// an object bundle made by LLVM, or a plain file with no bundle.
func archiveChild(t *testing.T, r *rand.Rand, l tool, dir string, objs [][]byte, idx int) (data []byte, cos []target) {
	t.Helper()
	var ts []target
	for len(ts) == 0 || ambiguous(ts, ts, false) {
		ts = randTargets(r, 4)
	}
	var entries []rawEntry
	for _, tg := range ts {
		data := randPayload(r, false)
		if tg.kind == "host" {
			data = []byte("host data")
		} else if r.IntN(5) == 0 {
			data = objs[r.IntN(len(objs))] // an ELF member: the archive gets a symbol table
		}
		entries = append(entries, rawEntry{tg.std, data})
	}
	kind := r.IntN(6)
	if kind >= 3 && !hasHost(ts) {
		kind = 0
	}
	switch kind {
	case 0, 1:
		return binaryBundle(entries, pick(r, alignments)), ts
	case 2:
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		plain := binaryBundle(entries, 1)
		zw.Write(plain)
		zw.Close()
		return ccobFile(pick(r, []uint16{1, 2, 3}), 0, plain, z.Bytes(), -1), ts
	case 3, 4:
		// LLVM makes the child: compressed binary, or an object bundle.
		args := []string{"-targets=" + raws(ts)}
		typ := "-type=bc"
		for i, e := range entries {
			name := fmt.Sprintf("c%d-%d", idx, i)
			if ts[i].kind == "host" && kind == 4 {
				typ = "-type=o"
				llvmtest.WriteFile(t, dir, name, objs[0])
			} else {
				llvmtest.WriteFile(t, dir, name, e.data)
			}
			args = append(args, "-input="+name)
		}
		if kind == 3 {
			args = append(args, "-compress")
		}
		out := fmt.Sprintf("child%d", idx)
		if res := run(t, dir, nil, l, append(args, typ, "-output="+out)...); res.Code != 0 {
			return binaryBundle(entries, 1), ts // LLVM refused the set; hand-write it
		}
		return llvmtest.ReadFile(t, filepath.Join(dir, out)), ts
	}
	return []byte("a member without bundles\n"), nil
}

// TestArchiveCrossCheck unbundles random heterogeneous archives for random
// device targets with both tools; every output archive must be
// byte-identical (member names, order, symbol table, GNU layout).
func TestArchiveCrossCheck(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	objs := getHostObjects(t)
	for i := 0; i < 60; i++ {
		seed := uint64(i)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			archiveCase(t, l, objs, seed)
		})
	}
}

func archiveCase(t *testing.T, l tool, objs [][]byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0xa4c417e))
	dir := t.TempDir()
	var members []arMember
	var all []target
	for i, n := 0, 1+r.IntN(5); i < n; i++ {
		data, cos := archiveChild(t, r, l, dir, objs, i)
		name := childNames[r.IntN(len(childNames))]
		if i > 0 && r.IntN(2) == 0 {
			name = fmt.Sprintf("m%d_%s", i, name)
		}
		members = append(members, arMember{name, data})
		all = append(all, cos...)
	}
	llvmtest.WriteFile(t, dir, "lib.a", arArchive(members))

	// Device requests. One may match several entries of a member (each
	// goes into its archive, in LLVM's StringMap order), and one entry
	// several requests.
	var reqs []target
	var hipOMP bool
	for try := 0; try < 50; try++ {
		var devs []target
		for _, c := range all {
			if c.kind != "host" {
				devs = append(devs, c)
			}
		}
		reqs, hipOMP = randRequests(r, devs)
		var kept []target
		for _, q := range reqs {
			if q.kind != "host" {
				kept = append(kept, q)
			}
		}
		reqs = kept
		if len(reqs) > 0 {
			break
		}
	}
	if len(reqs) == 0 {
		t.Skip("no device request for this seed")
	}
	var extra []string
	if hipOMP {
		extra = append(extra, "-hip-openmp-compatible")
	}
	if r.IntN(3) == 0 {
		extra = append(extra, "-allow-missing-bundles")
	}
	if r.IntN(3) == 0 {
		extra = append(extra, "-check-input-archive")
	}
	lr, or := unbundleRaw(t, l, dir, "a", "lib.a", rawsOf(reqs), extra...)
	if lr.Code == 0 && or.Code == 0 {
		for i := range reqs {
			checkArchive(t, filepath.Join(dir, fmt.Sprintf("o%d.out", i)))
		}
	}
}

func rawsOf(ts []target) []string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.raw
	}
	return s
}

// checkArchive parses an output archive; llvm-ar must list it too.
func checkArchive(t *testing.T, path string) {
	t.Helper()
	if _, err := arMembers(llvmtest.ReadFile(t, path)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

// TestArchiveHostAndErrors covers what the random test does not: host
// outputs from object members (LLVM's go through llvm-objcopy, so only
// names and contents are compared), the archive errors, and
// --check-input-archive.
func TestArchiveHostAndErrors(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	objs := getHostObjects(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "h.o", objs[1])
	llvmtest.WriteFile(t, dir, "dev", []byte("device"))
	if res := run(t, dir, nil, l, "-type=o", "-targets="+hostT+","+g906, "-input=h.o", "-input=dev", "-output=fat.o"); res.Code != 0 {
		t.Fatal(res)
	}
	fat := llvmtest.ReadFile(t, filepath.Join(dir, "fat.o"))
	conflict := binaryBundle([]rawEntry{{g906, []byte("A")}, {g906 + ":xnack+", []byte("B")}}, 1)
	badID := binaryBundle([]rawEntry{{"hip-amdgcn-amd-amdhsa", []byte("A")}}, 1)
	corrupt := ccobFile(3, 1, []byte("whatever"), []byte("not zstd data"), -1)
	llvmtest.WriteFile(t, dir, "host.a", arArchive([]arMember{{"fat.o", fat}, {"plain.txt", []byte("no bundles")}}))
	llvmtest.WriteFile(t, dir, "conflict.a", arArchive([]arMember{{"ok.o", fat}, {"bad.o", conflict}}))
	llvmtest.WriteFile(t, dir, "badid.a", arArchive([]arMember{{"bad.o", badID}}))
	llvmtest.WriteFile(t, dir, "corrupt.a", arArchive([]arMember{{"c.o", corrupt}}))
	llvmtest.WriteFile(t, dir, "empty.a", []byte("!<arch>\n"))

	// Host output: the member is the object without bundle sections.
	args := []string{"-unbundle", "-type=a", "-targets=" + hostT + "," + g906, "-input=host.a"}
	lr := run(t, dir, nil, l, append(args, "-output=l0.out", "-output=l1.out")...)
	or := run(t, dir, nil, ours(), append(args, "-output=o0.out", "-output=o1.out")...)
	if lr.Code != 0 || or.Code != 0 {
		t.Errorf("host archive: LLVM %v\nours %v", lr, or)
	} else {
		lm, _ := arMembers(llvmtest.ReadFile(t, filepath.Join(dir, "l0.out")))
		om, _ := arMembers(llvmtest.ReadFile(t, filepath.Join(dir, "o0.out")))
		if len(lm) != 1 || len(om) != 1 || lm[0].name != om[0].name {
			t.Fatalf("host archive members: LLVM %v, ours %v", memberNames(lm), memberNames(om))
		}
		sameObjectContent(t, "host member", objs[1], om[0].data)
		sameBytes(t, "device archive", llvmtest.ReadFile(t, filepath.Join(dir, "l1.out")), llvmtest.ReadFile(t, filepath.Join(dir, "o1.out")))
	}
	cases := []struct {
		in    string
		reqs  []string
		extra []string
	}{
		{"conflict.a", []string{g906}, []string{"-check-input-archive"}},
		{"conflict.a", []string{g906 + ":xnack+"}, nil}, // no check: both entries match
		{"host.a", []string{g908}, nil},
		{"host.a", []string{g908, g906}, []string{"-allow-missing-bundles"}},
		{"empty.a", []string{g906}, nil},
		{"empty.a", []string{g906}, []string{"-allow-missing-bundles"}},
		{"badid.a", []string{g906}, nil},
		{"corrupt.a", []string{g906}, nil},
		{"fat.o", []string{g906}, nil},
	}
	for _, c := range cases {
		unbundleRaw(t, l, dir, "a", c.in, c.reqs, c.extra...)
	}
	// An empty archive for a missing target is the 8-byte magic.
	unbundleRaw(t, l, dir, "a", "empty.a", []string{g906}, "-allow-missing-bundles")
	if got := string(llvmtest.ReadFile(t, filepath.Join(dir, "o0.out"))); got != "!<arch>\n" {
		t.Errorf("empty archive: %q", got)
	}
	// Bundling an archive is refused.
	res := run(t, dir, nil, ours(), "-type=a", "-targets="+hostT, "-input=host.a", "-output=x.a")
	if res.Code != 1 || !strings.Contains(res.Stderr, "Archive files are only supported for unbundling") || exists(filepath.Join(dir, "x.a")) {
		t.Errorf("bundling -type=a: %v", res)
	}
	os.Remove(filepath.Join(dir, "x.a"))
}

func memberNames(ms []arMember) []string {
	var n []string
	for _, m := range ms {
		n = append(n, m.name)
	}
	return n
}

// TestArchiveBitcodeMembers: device archives of bitcode members (what
// -fgpu-rdc HIP libraries hold) get a symbol table from LLVM's archive
// writer, listing the bitcode's global symbols; lld needs it to pick
// members. Ours must write the same archive.
func TestArchiveBitcodeMembers(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	cc := llvmtest.Tool(t, clangName)
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "dev.c", []byte("int dev_fn(int x) { return x + 1; }\nint dev_var = 3;\n"))
	llvmtest.Run(t, "", cc, "-c", "-emit-llvm", src, "-o", filepath.Join(dir, "dev.bc"))
	bc := llvmtest.ReadFile(t, filepath.Join(dir, "dev.bc"))
	child := binaryBundle([]rawEntry{{hostT + "-", []byte("host")}, {g906, bc}}, 1)
	llvmtest.WriteFile(t, dir, "lib.a", arArchive([]arMember{{"dev.o", child}}))
	lr, or := unbundleRaw(t, l, dir, "a", "lib.a", []string{g906})
	if lr.Code == 0 && or.Code == 0 && t.Failed() {
		t.Errorf("LLVM's archive has a symbol table for the bitcode member (dev_fn, dev_var); ours must too")
	}
}

// TestArchiveCodeObjectMembers: members that are real AMDGPU code objects
// (ELF shared objects) give an archive with LLVM's symbol table.
func TestArchiveCodeObjectMembers(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	clangxx := llvmtest.Tool(t, clangxxName)
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "k.hip", []byte(hipKernel))
	var entries []rawEntry
	for _, arch := range []string{"gfx906", "gfx90a:xnack+"} {
		out := filepath.Join(dir, strings.ReplaceAll(arch, ":", "_")+".hsaco")
		llvmtest.Run(t, "", clangxx, "-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", "--offload-arch="+arch,
			"-nogpuinc", "-nogpulib", "-c", src, "-o", out)
		entries = append(entries, rawEntry{"hipv4-amdgcn-amd-amdhsa--" + arch, llvmtest.ReadFile(t, out)})
	}
	llvmtest.WriteFile(t, dir, "lib.a", arArchive([]arMember{
		{"k.o", binaryBundle(append([]rawEntry{{hostT + "-", []byte("host")}}, entries...), 4096)},
		{"k2.o", binaryBundle(entries[:1], 1)},
	}))
	unbundleRaw(t, l, dir, "a", "lib.a", []string{g906, "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"})
}
