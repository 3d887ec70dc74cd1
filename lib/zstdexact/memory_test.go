package zstdexact

import (
	"math/rand"
	"runtime"
	"testing"
)

// TestMemoryBounded: with room for the frame given, what Compress
// allocates is its tables and one block's buffers, whatever the input's
// size: 2 MiB and 8 MiB of input (the same parameters) cost the same,
// a few MiB.
func TestMemoryBounded(t *testing.T) {
	in := genInput(rand.New(rand.NewSource(1)), 8<<20)
	alloc := func(n int) uint64 {
		dst := make([]byte, 0, n+n/128+1024)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		out, err := Compress(dst, in[:n], 5)
		runtime.ReadMemStats(&m1)
		if err != nil || &out[0] != &dst[:1][0] {
			t.Fatalf("%v, or the frame did not go where room was given", err)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	small, large := alloc(2<<20), alloc(8<<20)
	t.Logf("allocated %d KiB for 2 MiB, %d KiB for 8 MiB", small>>10, large>>10)
	if large > small+1<<20 || large > 8<<20 {
		t.Errorf("allocated %d KiB for 2 MiB of input, %d KiB for 8 MiB: grows with the input", small>>10, large>>10)
	}
}
