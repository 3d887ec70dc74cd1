package strtab

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// BuildRefs gives the table and offsets Build gives for the same strings,
// on random strings over a small alphabet (so that tails are shared often)
// and random tails of them, the empty one included.
func TestBuildRefsAsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		strs := make([]string, 1+rng.IntN(8))
		for i := range strs {
			b := make([]byte, rng.IntN(7))
			for j := range b {
				b[j] = "ab"[rng.IntN(2)]
			}
			strs[i] = string(b)
		}
		var refs []Ref
		var all []string
		for i, s := range strs {
			refs = append(refs, Ref{i, 0})
			for k := 0; k < 3; k++ {
				skip := rng.IntN(len(s) + 1)
				refs = append(refs, Ref{i, skip})
			}
		}
		for _, r := range refs {
			all = append(all, strs[r.Of][r.Skip:])
		}
		wantTab, wantOffs := Build(all)
		tab, offs := BuildRefs(strs, refs)
		if !bytes.Equal(tab, wantTab) {
			t.Fatalf("strs %q refs %v: table %q; Build %q", strs, refs, tab, wantTab)
		}
		for i, r := range refs {
			if s := strs[r.Of][r.Skip:]; offs[i] != wantOffs[s] {
				t.Fatalf("strs %q: %q at %d; Build puts it at %d (table %q)", strs, s, offs[i], wantOffs[s], tab)
			}
		}
	}
}

// Tails of one long string cost the string's length once, not once per
// tail.
func BenchmarkBuildRefsTails(b *testing.B) {
	long := strings.Repeat("A", 480000)
	refs := make([]Ref, 8000)
	for i := range refs {
		refs[i] = Ref{0, i * 7 % len(long)}
	}
	b.ReportAllocs()
	for b.Loop() {
		BuildRefs([]string{long}, refs)
	}
}

// The same through Build, for comparison.
func BenchmarkBuildTails(b *testing.B) {
	long := strings.Repeat("A", 480000)
	strs := make([]string, 8000)
	for i := range strs {
		strs[i] = long[i*7%len(long):]
	}
	b.ReportAllocs()
	for b.Loop() {
		Build(strs)
	}
}
