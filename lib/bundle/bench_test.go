package bundle

import (
	"encoding/binary"
	"io"
	"testing"
)

const benchPayload = 64 << 20

var benchIDs = []string{hostID, "hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1030"}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// virtualBundle is a ReaderAt over a bundle with large payloads that never
// exists in memory: the header is real, payload bytes read as zeros.
type virtualBundle struct {
	header []byte
	size   int64
}

func (v *virtualBundle) ReadAt(p []byte, off int64) (int, error) {
	if off >= v.size {
		return 0, io.EOF
	}
	n := copy(p, v.header[min(off, int64(len(v.header))):])
	clear(p[n:])
	if rest := v.size - off; int64(len(p)) > rest {
		return int(rest), io.EOF
	}
	return len(p), nil
}

func benchSizes() []int64 {
	sizes := make([]int64, len(benchIDs))
	for i := range sizes {
		sizes[i] = benchPayload
	}
	sizes[0] = 0 // HIP host entry
	return sizes
}

// BenchmarkWriteBinary streams three 64 MiB payloads to io.Discard;
// allocations must not depend on payload size.
func BenchmarkWriteBinary(b *testing.B) {
	sizes := benchSizes()
	_, total, _ := Layout(benchIDs, sizes, 4096)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		srcs := make([]io.Reader, len(sizes))
		for i, s := range sizes {
			srcs[i] = io.LimitReader(zeroReader{}, s)
		}
		if err := WriteBinary(io.Discard, benchIDs, sizes, srcs, 4096); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadBinary parses the header of a 192 MiB bundle and copies
// every payload out through Entry.Open.
func BenchmarkReadBinary(b *testing.B) {
	sizes := benchSizes()
	offsets, total, _ := Layout(benchIDs, sizes, 4096)
	hdr := []byte(Magic)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(benchIDs)))
	for i, id := range benchIDs {
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(offsets[i]))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(sizes[i]))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(id)))
		hdr = append(hdr, id...)
	}
	v := &virtualBundle{header: hdr, size: total}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		entries, err := ReadBinary(v, total)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			if _, err := io.Copy(io.Discard, e.Open(v)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadBinaryHeader measures header parsing alone.
func BenchmarkReadBinaryHeader(b *testing.B) {
	v := refVector(b)
	r := &virtualBundle{header: v, size: int64(len(v))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadBinary(r, int64(len(v))); err != nil {
			b.Fatal(err)
		}
	}
}
