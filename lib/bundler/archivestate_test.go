package bundler

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestReadAheadView checks window views against the data for sequential,
// backward, straddling and past-the-end requests.
func TestReadAheadView(t *testing.T) {
	data := make([]byte, 3*readAheadWindow+777)
	rand.NewChaCha8([32]byte{7}).Read(data)
	c := &readAhead{r: bytes.NewReader(data)}
	rng := rand.New(rand.NewPCG(1, 2))
	size := int64(len(data))
	var off int64
	for i := range 5000 {
		var n int64
		switch i % 4 {
		case 0: // sequential members, as an archive walk does
			n = 60 + rng.Int64N(40000)
		case 1: // anywhere, possibly past the end
			off, n = rng.Int64N(size+100), rng.Int64N(8192)
		case 2: // up to a whole window
			off, n = rng.Int64N(size), rng.Int64N(readAheadWindow+1)
		case 3: // straddling the end
			off, n = size-rng.Int64N(50), 100
		}
		got := c.view(off, n)
		if off+n > size {
			if got != nil {
				t.Fatalf("view %d: %d bytes at %d past the end of %d gave %d bytes", i, n, off, size, len(got))
			}
			off = 0
			continue
		}
		if !bytes.Equal(got, data[off:off+n]) || got == nil {
			t.Fatalf("view %d: %d bytes at %d differ from the data", i, n, off)
		}
		off += n
	}
	if c.view(0, readAheadWindow+1) != nil || c.view(-1, 1) != nil {
		t.Fatal("views larger than the window or at negative offsets must fail")
	}
}

// TestWindowReader checks that a member reads the same from its window,
// after the window is let go (from the file), and through heldBytes.
func TestWindowReader(t *testing.T) {
	data := make([]byte, 10000)
	rand.NewChaCha8([32]byte{9}).Read(data)
	const off, size = 1234, 5000
	w := &windowReader{b: bytes.Clone(data[off : off+size]), file: bytes.NewReader(data), off: off, size: size}
	want := io.NewSectionReader(bytes.NewReader(data), off, size)
	check := func(what string) {
		for _, r := range [][2]int64{{0, 10}, {4990, 20}, {size, 1}, {size + 5, 1}, {100, 4900}} {
			got, wantBuf := make([]byte, r[1]), make([]byte, r[1])
			gn, gerr := w.ReadAt(got, r[0])
			wn, werr := want.ReadAt(wantBuf, r[0])
			if gn != wn || (werr == nil) != (gerr == nil) || !bytes.Equal(got[:gn], wantBuf[:wn]) {
				t.Fatalf("%s: ReadAt(%d at %d) = %d, %v; want %d, %v", what, r[1], r[0], gn, gerr, wn, werr)
			}
		}
	}
	check("window")
	inner := io.NewSectionReader(w, 100, 4000)
	outer := io.NewSectionReader(inner, 50, 3000)
	if b := heldBytes(outer, 3000); !bytes.Equal(b, data[off+150:off+3150]) {
		t.Fatal("heldBytes through two sections differs from the data")
	}
	if heldBytes(outer, 3001) != nil || heldBytes(bytes.NewReader(data), 1) != nil {
		t.Fatal("heldBytes must refuse sizes past the section and other readers")
	}
	w.b = nil
	check("file")
	if heldBytes(outer, 3000) != nil {
		t.Fatal("heldBytes after release must be nil")
	}
}
