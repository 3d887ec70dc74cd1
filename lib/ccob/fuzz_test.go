package ccob

import (
	"bytes"
	"testing"
)

// FuzzParseHeader checks ParseHeader never panics and that every header it
// accepts encodes back to the same bytes.
func FuzzParseHeader(f *testing.F) {
	f.Add(unhex(f, refHeaderV3))
	f.Add(unhex(f, refHeaderV2))
	f.Add(unhex(f, "43434f42 0100 0000 97000000 b07ed61e84c137b3"))
	f.Add([]byte("CCOB\x04\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		enc, err := h.AppendBinary(nil)
		if err != nil {
			t.Fatalf("AppendBinary(%+v): %v", h, err)
		}
		if !bytes.Equal(enc, b[:h.HeaderSize]) {
			t.Fatalf("re-encoded %x, input %x", enc, b[:h.HeaderSize])
		}
	})
}

// FuzzDecompress checks Decompress never panics, stays within its limit
// and reports consistent sizes.
func FuzzDecompress(f *testing.F) {
	data := refBundle(f)
	for _, opt := range []WriterOptions{DefaultWriterOptions(), {Version: 2, Method: MethodZlib}} {
		c, _ := compress(f, data, opt)
		f.Add(c)
		f.Add(append(c, c...))
	}
	f.Add(v1CCOB(MethodZlib, data, stdZlib(f, data)))
	f.Add(v1CCOB(MethodZstd, data, zstdAll(f, data)))
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		h, n, err := Decompress(&out, bytes.NewReader(in), int64(len(in)), ReaderOptions{MaxUncompressedSize: limit})
		if err != nil {
			return
		}
		if h.UncompressedSize > limit || uint64(out.Len()) != h.UncompressedSize || n < int64(h.HeaderSize) || n > int64(len(in)) {
			t.Fatalf("header %+v, %d bytes out, consumed %d of %d", h, out.Len(), n, len(in))
		}
		// A rewrite must decompress to the same bundle.
		opt := WriterOptions{Version: 3, Method: h.Method}
		c, _ := compress(t, out.Bytes(), opt)
		var again bytes.Buffer
		_, _, err = Decompress(&again, bytes.NewReader(c), int64(len(c)), ReaderOptions{})
		if err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("rewrite decompresses to %d bytes that differ from the %d first decompressed", again.Len(), out.Len())
		}
	})
}
