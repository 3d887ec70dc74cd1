package offloadbin

import (
	"bytes"
	"io"
	"testing"
)

const benchImage = 64 << 20

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// virtualBinary is a ReaderAt over a binary whose image reads as zeros and
// never exists in memory.
type virtualBinary struct {
	meta []byte
	size int64
}

func (v *virtualBinary) ReadAt(p []byte, off int64) (int, error) {
	if off >= v.size {
		return 0, io.EOF
	}
	n := copy(p, v.meta[min(off, int64(len(v.meta))):])
	clear(p[n:])
	if rest := v.size - off; int64(len(p)) > rest {
		return int(rest), io.EOF
	}
	return len(p), nil
}

var benchStrings = []KV{{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a"}}

// BenchmarkWrite streams a 64 MiB image into a binary; allocations must not
// depend on the image size.
func BenchmarkWrite(b *testing.B) {
	b.SetBytes(benchImage)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Write(io.Discard, ImageObject, OffloadHIP, 0, benchStrings, io.LimitReader(zeroReader{}, benchImage), benchImage); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead parses a binary holding a 64 MiB image: headers only.
func BenchmarkRead(b *testing.B) {
	var meta bytes.Buffer
	n, err := Write(&meta, ImageObject, OffloadHIP, 0, benchStrings, bytes.NewReader(nil), 0)
	if err != nil {
		b.Fatal(err)
	}
	// Rewrite the sizes for a 64 MiB image behind the same metadata.
	m := meta.Bytes()[:n]
	le.PutUint64(m[8:], uint64(n+benchImage))
	le.PutUint64(m[headerSize+32:], benchImage)
	v := &virtualBinary{meta: m, size: n + benchImage}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadAll(v, v.size); err != nil {
			b.Fatal(err)
		}
	}
}
