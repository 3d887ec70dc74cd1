package strtab

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The block index finds the same string as a scan from the offset, for
// stops near, at and across block boundaries, with one stop byte (a NUL)
// and with two (an archive's long names end at a newline or a NUL).
func TestTableAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, stops := range []string{"\x00", "\n\x00"} {
		for _, density := range []int{2, 100, 5000, 1 << 20} {
			b := make([]byte, 3*blockSize+77)
			for i := range b {
				if b[i] = 'a' + byte(i%26); rng.IntN(density) == 0 {
					b[i] = stops[rng.IntN(len(stops))]
				}
			}
			b[blockSize-1] = 0
			if density == 1<<20 {
				b[len(b)-1] = 0 // else the last strings run to the end
			}
			tab := NewTable(b, stops)
			for off := range b {
				want, ended := b[off:], false
				if i := bytes.IndexAny(want, stops); i >= 0 {
					want, ended = want[:i], true
				}
				if got, ok := tab.At(off); got != string(want) || ok != ended {
					t.Fatalf("stops %q, density %d: At(%d) = %d bytes, %v; want %d, %v", stops, density, off, len(got), ok, len(want), ended)
				}
			}
		}
	}
}
