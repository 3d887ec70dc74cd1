package bundler

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestReadAheadMatchesReaderAt checks the archive read-ahead against
// bytes.Reader for sequential, backward, straddling and past-the-end reads,
// including reads larger than the window that bypass it.
func TestReadAheadMatchesReaderAt(t *testing.T) {
	data := make([]byte, 3*readAheadWindow+777)
	rand.NewChaCha8([32]byte{7}).Read(data)
	want := bytes.NewReader(data)
	c := &readAhead{r: bytes.NewReader(data)}
	rng := rand.New(rand.NewPCG(1, 2))
	size := int64(len(data))
	var off int64
	for i := range 5000 {
		var n int
		switch i % 4 {
		case 0: // sequential small reads, as an archive walk does
			n = 60 + rng.IntN(4096)
		case 1: // anywhere, possibly past the end
			off, n = rng.Int64N(size+100), rng.IntN(8192)
		case 2: // larger than a quarter window: read directly
			off, n = rng.Int64N(size), readAheadWindow/4+1+rng.IntN(readAheadWindow)
		case 3: // straddling the end
			off, n = size-int64(rng.IntN(50)), 100
		}
		got, wantBuf := make([]byte, n), make([]byte, n)
		gn, gerr := c.ReadAt(got, off)
		wn, werr := want.ReadAt(wantBuf, off)
		if gn != wn || (gerr == nil) != (werr == nil) || !bytes.Equal(got[:gn], wantBuf[:wn]) {
			t.Fatalf("read %d: ReadAt(%d bytes at %d) = %d, %v; want %d, %v", i, n, off, gn, gerr, wn, werr)
		}
		if gerr != nil && gerr != io.EOF {
			t.Fatalf("read %d: unexpected error %v", i, gerr)
		}
		off += int64(gn)
	}
}
