package coffobj

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The block index finds the same string as a scan from the offset, for
// NULs near, at and across block boundaries.
func TestStringTableAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, density := range []int{2, 100, 5000, 1 << 20} {
		b := make([]byte, 3*blockSize+77)
		for i := range b {
			if b[i] = 'a' + byte(i%26); rng.IntN(density) == 0 {
				b[i] = 0
			}
		}
		b[blockSize-1], b[len(b)-1] = 0, 0
		tab := newStringTable(b)
		for off := range b {
			want := b[off:]
			want = want[:bytes.IndexByte(want, 0)]
			if got := tab.at(off); got != string(want) {
				t.Fatalf("density %d: at(%d) = %d bytes, want %d", density, off, len(got), len(want))
			}
		}
	}
}
