package zstdexact

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// recordedCase is an input made here and the level it is compressed at;
// testdata/libzstd holds libzstd 1.5.6's frame of each (docs/provenance.md).
type recordedCase struct {
	name  string
	level int
	make  func() []byte
}

func genSeeded(seed int64, n int) func() []byte {
	return func() []byte { return genInput(rand.New(rand.NewSource(seed)), n) }
}

func noise(seed int64, n int) func() []byte {
	return func() []byte {
		b := make([]byte, n)
		rand.New(rand.NewSource(seed)).Read(b)
		return b
	}
}

// shuffledCounts is a shuffle of bytes with the given counts per symbol
// run: many equal counts, so that the order libzstd's Huffman sort gives
// equal counts decides the codes.
func shuffledCounts(seed int64, runs ...[3]int) func() []byte {
	return func() []byte {
		var b []byte
		for _, r := range runs { // first symbol, symbols, copies
			for s := r[0]; s < r[0]+r[1]; s++ {
				for i := 0; i < r[2]; i++ {
					b = append(b, byte(s))
				}
			}
		}
		rng := rand.New(rand.NewSource(seed))
		rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		return b
	}
}

// skipped is noise, then text, then copies of stretches of the noise:
// what the copies match depends on which noise positions the match
// finder inserted while skipping through it.
func skipped() []byte {
	n := noise(11, 6000)()
	b := append([]byte{}, n...)
	b = append(b, genSeeded(12, 3000)()...)
	b = append(b, n[2500:4100]...)
	b = append(b, n[4700:5900]...)
	return append(b, n[100:900]...)
}

// repeated is text copied over and over with a few bytes changed: matches
// longer than the optimal parser prices at once (4 KiB), repeated
// offsets, and stretches the binary tree skips.
func repeated() []byte {
	g := genSeeded(16, 9000)()
	var b []byte
	for i := 0; i < 6; i++ {
		b = append(b, g...)
		b[len(b)-1-i*997] ^= 0x55
	}
	return b
}

// heterogeneous is stretches of unlike data (text, noise, skewed bytes,
// repeats, zeros) over two blocks, which libzstd's block splitter cuts
// into blocks of their own, some stored raw.
func heterogeneous() []byte {
	var b []byte
	for i, part := range [][]byte{
		genSeeded(20, 40000)(), noise(21, 6000)(),
		shuffledCounts(22, [3]int{'a', 4, 2000}, [3]int{'0', 10, 300})(), repeated(),
		make([]byte, 20000), genSeeded(23, 50000)(), noise(24, 5000)(),
		shuffledCounts(25, [3]int{'A', 26, 400})(), genSeeded(26, 12000)(),
	} {
		b = append(b, part...)
		b = append(b, byte(i))
	}
	return b
}

// recordedCases cover each size class of level 5 (hash chains up to 16
// KiB, rows above; one block, several), the edges (empty, too short to
// try, raw and RLE blocks), and the greedy, lazy and lazy2 strategies at
// levels 4, 6 and 8; then the optimal strategies: fatbinary's size mode
// (level 19: btultra2, with its first pass) in each size class it takes,
// up to the largest source of one block and over several blocks (cut by
// the block splitter), btopt and btultra (level 13 above and below 16
// KiB, level 16 over two blocks) and level 22.
var recordedCases = []recordedCase{
	{"empty", 5, func() []byte { return nil }},
	{"one", 5, func() []byte { return []byte{'x'} }},
	{"six", 5, func() []byte { return []byte("abcabc") }},
	{"seven", 5, func() []byte { return []byte("aaaaaaa") }},
	{"gen100", 5, genSeeded(1, 100)},
	{"gen1000", 5, genSeeded(2, 1000)},
	{"gen5000", 5, genSeeded(3, 5000)},
	{"gen16384", 5, genSeeded(4, 16384)},
	{"gen16385", 5, genSeeded(5, 16385)},
	{"gen25000", 5, genSeeded(6, 25000)},
	{"blocks140000", 5, func() []byte { // two blocks, the second reusing tables
		g := genInput(rand.New(rand.NewSource(7)), 140000)
		for i := 20000; i < len(g); i += 997 {
			copy(g[i:], g[i-20000:i-20000+900]) // mostly old text, some new
		}
		return g
	}},
	{"noise3000", 5, noise(9, 3000)},
	{"noise20000", 5, noise(10, 20000)},
	{"zeros300000", 5, func() []byte { return make([]byte, 300000) }},
	{"skipped", 5, skipped},
	{"skipped-rows", 5, func() []byte { return append(skipped(), genSeeded(13, 20000)()...) }},
	{"counts", 5, shuffledCounts(14, [3]int{'a', 5, 300}, [3]int{'A', 26, 700}, [3]int{'0', 6, 170}, [3]int{' ', 3, 40})},
	{"counts-rows", 5, shuffledCounts(15, [3]int{'a', 7, 700}, [3]int{'A', 26, 450}, [3]int{'0', 9, 1100})},
	{"gen5000-l4", 4, genSeeded(3, 5000)},
	{"gen5000-l6", 6, genSeeded(3, 5000)},
	{"gen25000-l6", 6, genSeeded(6, 25000)},
	{"gen25000-l8", 8, genSeeded(6, 25000)},
	{"gen25000-l10", 10, genSeeded(6, 25000)},
	{"nine-l19", 19, func() []byte { return []byte("abcabcabc") }},
	{"gen100-l19", 19, genSeeded(1, 100)},
	{"gen5000-l19", 19, genSeeded(3, 5000)},
	{"gen16384-l19", 19, genSeeded(4, 16384)},
	{"gen40000-l19", 19, genSeeded(17, 40000)},
	{"gen65536-l19", 19, genSeeded(18, 65536)},
	{"noise3000-l19", 19, noise(9, 3000)},
	{"zeros60000-l19", 19, func() []byte { return make([]byte, 60000) }},
	{"skipped-l19", 19, skipped},
	{"counts-l19", 19, shuffledCounts(14, [3]int{'a', 5, 300}, [3]int{'A', 26, 700}, [3]int{'0', 6, 170}, [3]int{' ', 3, 40})},
	{"repeated-l19", 19, repeated},
	{"gen5000-l13", 13, genSeeded(3, 5000)},
	{"gen40000-l13", 13, genSeeded(17, 40000)},
	{"repeated-l13", 13, repeated},
	{"gen40000-l22", 22, genSeeded(17, 40000)},
	{"hetero-l19", 19, heterogeneous},
	{"hetero2x-l16", 16, func() []byte { // btopt over 256 KiB
		h := heterogeneous()
		b := append(append([]byte{}, h...), h...)
		for i := len(h); i < len(b); i += 4999 {
			b[i] ^= 0x5a
		}
		return b
	}},
}

// TestRecorded compares Compress with libzstd's recorded frames. With
// ZSTDEXACT_RECORD naming the oracle program (see TestOracle), it
// records them anew.
func TestRecorded(t *testing.T) {
	oracle := os.Getenv("ZSTDEXACT_RECORD")
	for _, c := range recordedCases {
		in := c.make()
		path := filepath.Join("testdata", "libzstd", c.name+".zst")
		if oracle != "" {
			f := filepath.Join(t.TempDir(), "in")
			os.WriteFile(f, in, 0o644)
			if out, err := exec.Command(oracle, fmt.Sprint(c.level), f, path).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", oracle, err, out)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Compress(nil, in, c.level)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			d := 0
			for d < len(got) && d < len(want) && got[d] == want[d] {
				d++
			}
			t.Errorf("%s (level %d, %d bytes): %d bytes, libzstd's %d, first difference at %d", c.name, c.level, len(in), len(got), len(want), d)
		}
		if back, err := decode(got, len(in)); err != nil || !bytes.Equal(back, in) {
			t.Errorf("%s: does not decode to the input (%v)", c.name, err)
		}
	}
}
