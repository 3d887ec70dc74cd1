package bundler_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestListOrderMatchesLLVM lists binary bundles of up to 200 entries (the
// replayed StringMap grows from 16 to 256 buckets), some with IDs longer
// than 240 bytes (xxh3's long path), and compares the order with LLVM's;
// then unbundles up to three entries by exact ID with both tools.
func TestListOrderMatchesLLVM(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0x11570))
			dir := t.TempDir()
			ids := randomIDs(r, 1+r.IntN(200))
			es := make([]rawEntry, len(ids))
			for i, id := range ids {
				es[i] = rawEntry{id, []byte("payload of " + id)}
			}
			if err := os.WriteFile(filepath.Join(dir, "b.bc"), binaryBundle(es, 1), 0o644); err != nil {
				t.Fatal(err)
			}
			if llvmtest.OracleMajor() >= 23 {
				// LLVM 23 lists in another order than 22.1.8, whose
				// (StringMap) order ours follows: the same entries.
				lr, or := run(t, dir, nil, l, "-type=bc", "-list", "-input=b.bc"), run(t, dir, nil, ours(), "-type=bc", "-list", "-input=b.bc")
				if lr.Code != 0 || or.Code != 0 || !slices.Equal(sortedLines(lr.Stdout), sortedLines(or.Stdout)) {
					t.Errorf("-list: LLVM %v\nours %v", lr, or)
				}
			} else {
				listBoth(t, l, dir, "bc", "b.bc", nil)
			}
			var reqs []string // plain processors: valid requests
			for _, id := range ids {
				if !strings.Contains(id, ":") && len(reqs) < 3 {
					reqs = append(reqs, id)
				}
			}
			if len(reqs) > 0 {
				unbundleRaw(t, l, dir, "bc", "b.bc", reqs)
			}
		})
	}
}

// randomIDs makes n distinct valid HIP entry IDs: real processors with
// feature suffixes, and target-ID-like tails that make some IDs long.
func randomIDs(r *rand.Rand, n int) []string {
	procs := []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"}
	seen := map[string]bool{}
	var ids []string
	for len(ids) < n {
		id := "hip-amdgcn-amd-amdhsa--" + procs[r.IntN(len(procs))]
		for range r.IntN(3) {
			id += fmt.Sprintf(":f%d%c", r.IntN(1000), "+-"[r.IntN(2)])
		}
		if r.IntN(10) == 0 {
			id += ":" + strings.Repeat("x", 200+r.IntN(400))
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// TestArchiveEntryOrderMatchesLLVM unbundles device archives whose members
// are binary bundles with several entries compatible with one target (a
// generic code object and feature variants, in random file order). All of
// them go into the output archive, in LLVM's StringMap order; the outputs
// must be byte-identical to LLVM's.
func TestArchiveEntryOrderMatchesLLVM(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	procs := []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1010", "gfx1030", "gfx1100"}
	variants := []string{"", ":xnack+", ":xnack-", ":sramecc+", ":sramecc+:xnack+", ":sramecc-:xnack+"}
	requests := []string{":xnack+", ":xnack-", ":sramecc+:xnack+", ":sramecc-:xnack-"}
	for seed := range uint64(48) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0x5e7))
			base := "hip-amdgcn-amd-amdhsa--" + procs[r.IntN(len(procs))]
			var members []arMember
			for i := range 1 + r.IntN(4) {
				var es []rawEntry
				for _, v := range r.Perm(len(variants))[:1+r.IntN(len(variants))] {
					es = append(es, rawEntry{base + variants[v], []byte(fmt.Sprintf("member %d, %s", i, variants[v]))})
				}
				members = append(members, arMember{fmt.Sprintf("m%d.o", i), binaryBundle(es, 1)})
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lib.a"), arArchive(members), 0o644); err != nil {
				t.Fatal(err)
			}
			req := base + requests[r.IntN(len(requests))]
			unbundleRaw(t, l, dir, "a", "lib.a", []string{req}, "-allow-missing-bundles")
		})
	}
}

// TestUnbundleChoiceMatchesLLVM unbundles bundles in which each entry suits
// several requests and none is any request's exact ID: a generic hip and a
// generic openmp code object, asked for as hip and openmp targets with
// features, with --hip-openmp-compatible. LLVM gives each entry (in its
// StringMap order) to the first compatible target in its worklist's
// StringMap order; ours must choose the same.
func TestUnbundleChoiceMatchesLLVM(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	procs := []string{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1010", "gfx1030", "gfx1100", "gfx1201"}
	feats := []string{":xnack+", ":xnack-"}
	for seed := range uint64(36) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0xc401ce))
			tail := "-amdgcn-amd-amdhsa--" + procs[r.IntN(len(procs))]
			es := []rawEntry{{"hip" + tail, []byte("hip code")}, {"openmp" + tail, []byte("openmp code")}}
			r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "b.bc"), binaryBundle(es, 1), 0o644); err != nil {
				t.Fatal(err)
			}
			reqs := []string{"hip" + tail + feats[r.IntN(2)], "openmp" + tail + feats[r.IntN(2)]}
			r.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
			unbundleRaw(t, l, dir, "bc", "b.bc", reqs, "--hip-openmp-compatible", "-allow-missing-bundles")
		})
	}
}

// TestExactTargetFirst pins the one place where ours chooses differently
// on purpose: LLVM hands the hip entry to the openmp target that comes
// first in its worklist, and the hip target that asked for exactly that
// entry gets an empty file; ours gives it to the hip target.
func TestExactTargetFirst(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	tail := "-amdgcn-amd-amdhsa--gfx906"
	if err := os.WriteFile(filepath.Join(dir, "b.bc"), binaryBundle([]rawEntry{{"hip" + tail, []byte("hip code")}}, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-type=bc", "-unbundle", "--hip-openmp-compatible", "-allow-missing-bundles",
		"-targets=hip" + tail + ",openmp" + tail + ":xnack+", "-input=b.bc"}
	for _, c := range []struct {
		tl        tool
		hip, omp  string
		hipWanted string
	}{
		{l, "l0", "l1", ""},
		{ours(), "o0", "o1", "hip code"},
	} {
		if r := run(t, dir, nil, c.tl, append(args, "-output="+c.hip, "-output="+c.omp)...); r.Code != 0 {
			t.Fatalf("%s: %v", c.tl.name, r)
		}
		hip := string(llvmtest.ReadFile(t, filepath.Join(dir, c.hip)))
		omp := string(llvmtest.ReadFile(t, filepath.Join(dir, c.omp)))
		if hip != c.hipWanted || hip+omp != "hip code" {
			t.Errorf("%s: hip target got %q, openmp target %q", c.tl.name, hip, omp)
		}
	}
}
