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
// binary tree, two hash tables, the parser's price table), which the
// parameters size by the level and the source's size class, and a block's
// worth of buffers beside them; nothing grows with the input beyond
// that. At level 22 a 64 KiB source of any kind costs under 3 MiB; at
// fatbinary's size level 19, 200 KiB and 1 MiB (several blocks, cut by
// the block splitter) cost their tables and under 2 MiB more.
func TestMemoryBoundedOpt(t *testing.T) {
	alloc := func(in []byte, level int) uint64 {
		dst := make([]byte, 0, len(in)+len(in)/128+1024)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := Compress(dst, in, level)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	for _, in := range [][]byte{genInput(rand.New(rand.NewSource(1)), 64<<10), repeated()[:64<<10], make([]byte, 64<<10)} {
		if a := alloc(in, 22); a > 3<<20 {
			t.Errorf("allocated %d KiB for %d bytes at level 22", a>>10, len(in))
		} else {
			t.Logf("allocated %d KiB for %d bytes at level 22", a>>10, len(in))
		}
	}
	for _, n := range []int{200 << 10, 1 << 20} {
		p := paramsFor(19, int64(n))
		tables := uint64(4) << p.hashLog
		tables += uint64(4) << p.chainLog
		tables += uint64(4) << min(hashLog3M, p.windowLog)
		a := alloc(genInput(rand.New(rand.NewSource(2)), n), 19)
		t.Logf("allocated %d KiB for %d bytes at level 19 (tables %d KiB)", a>>10, n, tables>>10)
		if a > tables+2<<20 {
			t.Errorf("allocated %d KiB for %d bytes at level 19, over its tables' %d KiB and 2 MiB", a>>10, n, tables>>10)
		}
	}
}
