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

// TestMemoryBoundedOpt: the optimal strategies allocate their tables (a
// binary tree, two hash tables, the parser's price table) and nothing that
// grows with the input beyond them: at level 22, the largest tables, a
// 64 KiB source of either kind costs under 3 MiB; a source too large for
// them is refused before anything is allocated.
func TestMemoryBoundedOpt(t *testing.T) {
	for _, in := range [][]byte{genInput(rand.New(rand.NewSource(1)), 64<<10), repeated()[:64<<10], make([]byte, 64<<10)} {
		dst := make([]byte, 0, len(in)+1024)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := Compress(dst, in, 22)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 3<<20 {
			t.Errorf("allocated %d KiB for %d bytes at level 22", a>>10, len(in))
		} else {
			t.Logf("allocated %d KiB for %d bytes at level 22", a>>10, len(in))
		}
	}
	big := make([]byte, 64<<10+1)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := Compress(nil, big, 19)
	runtime.ReadMemStats(&m1)
	if err == nil || m1.TotalAlloc-m0.TotalAlloc > 64<<10 {
		t.Errorf("64 KiB + 1 at level 19: %v, %d bytes allocated; want ErrStrategy and nothing", err, m1.TotalAlloc-m0.TotalAlloc)
	}
}
