package xxh3

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestAgainstXXHSum compares Sum64 with the reference implementation's
// command-line tool (xxhsum -H3, Debian's xxhash package) on seeded random
// inputs of every length up to 2,100 bytes, which covers each length class
// and the long path with one, two and three blocks.
func TestAgainstXXHSum(t *testing.T) {
	tool := llvmtest.Tool(t, "xxhsum")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]uint64{}
	var args []string
	for n := 0; n <= 2100; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if n%3 == 0 { // also text, like the bundle IDs this hashes
			for i := range b {
				b[i] = "abcdefghijklmnopqrstuvwxyz0123456789-_:+"[r.IntN(40)]
			}
		}
		name := fmt.Sprintf("in%04d", n)
		llvmtest.WriteFile(t, dir, name, b)
		want[name] = Sum64(b)
		args = append(args, name)
	}
	out := llvmtest.Run(t, dir, tool, append([]string{"-H3"}, args...)...)
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		// "XXH3 (name) = 0123456789abcdef"
		name, hex, ok := strings.Cut(strings.TrimPrefix(line, "XXH3 ("), ") = ")
		if !ok {
			t.Fatalf("unexpected xxhsum line %q", line)
		}
		got, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			t.Fatalf("xxhsum line %q: %v", line, err)
		}
		if w, ok := want[filepath.Base(name)]; !ok || w != got {
			t.Errorf("%s: Sum64 = %016x, xxhsum %016x", name, w, got)
		}
		seen++
	}
	if seen != len(args) {
		t.Fatalf("xxhsum printed %d hashes for %d files", seen, len(args))
	}
}

// Spot values from xxhsum -H3, for machines without it.
func TestKnownValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0x2d06800538d394c2},
		{"abc", 0x78af5f94892f3950},
	} {
		if got := SumString(tc.in); got != tc.want {
			t.Errorf("Sum64(%q) = %016x, want %016x", tc.in, got, tc.want)
		}
	}
}
