package nvfatbin

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// readAhead reads what the reader under it reads, at any offsets and
// sizes, the end of the input included.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 3*readAheadSize+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	a := newReadAhead(bytes.NewReader(data))
	for range 10000 {
		off := rng.Int64N(int64(len(data)) + 10)
		p := make([]byte, rng.IntN(2*readAheadSize/3))
		n, err := a.ReadAt(p, off)
		want := max(0, min(int64(len(p)), int64(len(data))-off))
		if int64(n) != want || n > 0 && !bytes.Equal(p[:n], data[off:off+int64(n)]) || (int64(n) < int64(len(p))) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d", len(p), off, n, err, want)
		}
	}
}
