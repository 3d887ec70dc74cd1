package ccob

import (
	"bytes"
	stdzlib "compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
)

// memFile is an in-memory io.WriteSeeker.
type memFile struct {
	b   []byte
	pos int64
}

func (m *memFile) Write(p []byte) (int, error) {
	if end := m.pos + int64(len(p)); end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.pos:], p)
	m.pos += int64(len(p))
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.pos
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("negative seek")
	}
	m.pos = off
	return off, nil
}

// semiCompressible returns n bytes drawn from a skewed vocabulary of random
// words: compresses roughly 2:1, like mixed code and data.
func semiCompressible(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := make([][]byte, 4096)
	for i := range words {
		words[i] = make([]byte, 2+rng.IntN(10))
		for j := range words[i] {
			words[i][j] = byte(rng.Uint32())
		}
	}
	b := make([]byte, 0, n+16)
	for len(b) < n {
		if rng.IntN(8) == 0 {
			b = append(b, byte(rng.Uint32()))
		} else {
			b = append(b, words[int(rng.ExpFloat64()*200)%len(words)]...)
		}
	}
	return b[:n]
}

func compress(t testing.TB, data []byte, opt WriterOptions) ([]byte, Header) {
	t.Helper()
	var m memFile
	h, err := Compress(&m, bytes.NewReader(data), int64(len(data)), opt)
	if err != nil {
		t.Fatal(err)
	}
	if int64(h.TotalSize) != int64(len(m.b)) || m.pos != int64(len(m.b)) {
		t.Fatalf("TotalSize %d, wrote %d, positioned at %d", h.TotalSize, len(m.b), m.pos)
	}
	return m.b, h
}

func decompress(data []byte, opt ReaderOptions) ([]byte, Header, int64, error) {
	var out bytes.Buffer
	h, n, err := Decompress(&out, bytes.NewReader(data), int64(len(data)), opt)
	return out.Bytes(), h, n, err
}

// TestRoundTrip compresses with every version, method and a few levels and
// sizes, and checks Decompress and the header.
func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 151, 1024, 1025, 200 << 10, 3 << 20}
	for _, m := range []Method{MethodZstd, MethodZlib} {
		for _, v := range []uint16{2, 3} {
			levels := []int{-5, 0, 1, 6, 12}
			if m == MethodZlib {
				levels = []int{-2, 0, 1, 9}
			}
			for _, lvl := range levels {
				for _, n := range sizes {
					name := fmt.Sprintf("%s-v%d-l%d-%d", m, v, lvl, n)
					t.Run(name, func(t *testing.T) {
						if testing.Short() && n > 1<<20 {
							t.Skip("large")
						}
						data := semiCompressible(uint64(n), n)
						c, h := compress(t, data, WriterOptions{Version: v, Method: m, Level: lvl})
						sum := md5.Sum(data)
						want := Header{Version: v, Method: m, TotalSize: uint64(len(c)), UncompressedSize: uint64(n),
							Hash: binary.LittleEndian.Uint64(sum[:8]), HeaderSize: HeaderSize(v)}
						if h != want {
							t.Errorf("header %+v, want %+v", h, want)
						}
						got, h2, consumed, err := decompress(c, ReaderOptions{})
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, data) || h2 != want || consumed != int64(len(c)) {
							t.Errorf("round trip: %d bytes, header %+v, consumed %d", len(got), h2, consumed)
						}
					})
				}
			}
		}
	}
}

// TestZstdFrame checks the frame is what LLVM's ZSTD_compress2 makes: one
// frame with the content size and no checksum.
func TestZstdFrame(t *testing.T) {
	for _, n := range []int{0, 100, 5000, 300 << 10} {
		data := semiCompressible(1, n)
		c, h := compress(t, data, DefaultWriterOptions())
		var fh zstd.Header
		if err := fh.Decode(c[h.HeaderSize:]); err != nil {
			t.Fatal(err)
		}
		if !fh.HasFCS || fh.FrameContentSize != uint64(n) || fh.HasCheckSum {
			t.Errorf("size %d: frame header %+v", n, fh)
		}
	}
}

func TestDeterministicAcrossConcurrency(t *testing.T) {
	data := semiCompressible(3, 2<<20)
	var first []byte
	for _, c := range []int{1, 2, 4} {
		got, _ := compress(t, data, WriterOptions{Method: MethodZstd, Concurrency: c})
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("concurrency %d changes the output", c)
		}
	}
}

// v1CCOB builds a version 1 CCOB by hand around payload.
func v1CCOB(m Method, uncompressed, payload []byte) []byte {
	sum := md5.Sum(uncompressed)
	b := []byte("CCOB\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(m))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(uncompressed)))
	b = append(b, sum[:8]...)
	return append(b, payload...)
}

func stdZlib(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	w := stdzlib.NewWriter(&buf)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdAll(t testing.TB, data []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(data, nil)
}

func TestVersion1(t *testing.T) {
	data := refBundle(t)
	for _, tc := range []struct {
		m       Method
		payload []byte
	}{{MethodZlib, stdZlib(t, data)}, {MethodZstd, zstdAll(t, data)}} {
		c := v1CCOB(tc.m, data, tc.payload)
		got, h, consumed, err := decompress(c, ReaderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.m, err)
		}
		want := Header{Version: 1, Method: tc.m, UncompressedSize: 151, Hash: refHash, HeaderSize: 20}
		if !bytes.Equal(got, data) || h != want || consumed != int64(len(c)) {
			t.Errorf("%s: got %d bytes, %+v, consumed %d", tc.m, len(got), h, consumed)
		}
		// Version 1 has no total size: the payload runs to the end, so a
		// trailing byte reaches the codec and is refused.
		if _, _, _, err := decompress(append(c, 0), ReaderOptions{}); !errors.Is(err, ErrDecompress) {
			t.Errorf("%s with a trailing byte: %v", tc.m, err)
		}
	}
}

func TestTrailingAndConcatenated(t *testing.T) {
	a, b := semiCompressible(1, 4000), semiCompressible(2, 9000)
	ca, _ := compress(t, a, DefaultWriterOptions())
	cb, _ := compress(t, b, WriterOptions{Version: 2, Method: MethodZlib})

	padded := append(bytes.Clone(ca), make([]byte, 4096-len(ca)%4096)...)
	got, _, n, err := decompress(padded, ReaderOptions{})
	if err != nil || !bytes.Equal(got, a) || n != int64(len(ca)) {
		t.Fatalf("padded: %v, consumed %d of %d", err, n, len(ca))
	}

	// Two CCOBs written back to back into one file.
	var f memFile
	f.Write([]byte("prefix"))
	if _, err := Compress(&f, bytes.NewReader(a), int64(len(a)), DefaultWriterOptions()); err != nil {
		t.Fatal(err)
	}
	if _, err := Compress(&f, bytes.NewReader(b), int64(len(b)), WriterOptions{Version: 2, Method: MethodZlib}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.b, append(append([]byte("prefix"), ca...), cb...)) {
		t.Fatal("Compress at an offset wrote different bytes")
	}
	r := bytes.NewReader(f.b)
	off := int64(len("prefix"))
	for i, want := range [][]byte{a, b} {
		var out bytes.Buffer
		sr := io.NewSectionReader(r, off, int64(len(f.b))-off)
		_, n, err := Decompress(&out, sr, sr.Size(), ReaderOptions{})
		if err != nil || !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("CCOB %d: %v", i, err)
		}
		off += n
	}
	if off != int64(len(f.b)) {
		t.Errorf("consumed up to %d of %d", off, len(f.b))
	}
}

func setU64(b []byte, off int, v uint64) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

func TestDecompressErrors(t *testing.T) {
	data := semiCompressible(5, 3000)
	zs, _ := compress(t, data, DefaultWriterOptions())
	zl, _ := compress(t, data, WriterOptions{Version: 3, Method: MethodZlib})
	const total, usize, hash = 8, 16, 24 // v3 field offsets

	corrupt := bytes.Clone(zs)
	for i := 40; i < len(corrupt); i += 7 {
		corrupt[i] ^= 0x5a
	}
	zlibTrailing := setU64(append(bytes.Clone(zl), 1, 2, 3), total, uint64(len(zl)+3))

	tests := []struct {
		name string
		in   []byte
		opt  ReaderOptions
		want error
	}{
		{"not-ccob", refBundle(t), ReaderOptions{}, ErrNotCompressed},
		{"truncated-header", zs[:20], ReaderOptions{}, ErrHeaderTooSmall},
		{"bad-method", func() []byte { b := bytes.Clone(zs); b[6] = 9; return b }(), ReaderOptions{}, ErrUnknownMethod},
		{"version4", func() []byte { b := bytes.Clone(zs); b[4] = 4; return b }(), ReaderOptions{}, ErrUnknownVersion},
		{"total-past-end", setU64(zs, total, uint64(len(zs)+1)), ReaderOptions{}, ErrTotalSize},
		{"total-in-header", setU64(zs, total, 31), ReaderOptions{}, ErrTotalSize},
		{"total-zero", setU64(zs, total, 0), ReaderOptions{}, ErrTotalSize},
		{"total-cuts-payload", setU64(zs, total, uint64(len(zs)-1)), ReaderOptions{}, ErrDecompress},
		{"payload-cut", setU64(zs[:len(zs)-5], total, uint64(len(zs)-5)), ReaderOptions{}, ErrDecompress},
		{"huge-declared", setU64(zs, usize, 1<<62), ReaderOptions{}, ErrTooLarge},
		{"above-limit", zs, ReaderOptions{MaxUncompressedSize: 2999}, ErrTooLarge},
		{"declared-small", setU64(zs, usize, 2999), ReaderOptions{}, ErrSizeMismatch},
		{"declared-large", setU64(zs, usize, 3001), ReaderOptions{}, ErrSizeMismatch},
		{"zlib-declared-small", setU64(zl, usize, 100), ReaderOptions{}, ErrSizeMismatch},
		{"hash", setU64(zs, hash, 1), ReaderOptions{}, ErrHashMismatch},
		{"corrupt-zstd", corrupt, ReaderOptions{}, ErrDecompress},
		{"zlib-trailing-in-payload", zlibTrailing, ReaderOptions{}, ErrDecompress},
		{"zlib-as-zstd", func() []byte { b := bytes.Clone(zl); b[6] = 1; return b }(), ReaderOptions{}, ErrDecompress},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := decompress(tc.in, tc.opt)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	_, _, _, err := decompress(setU64(zs, hash, 1), ReaderOptions{})
	if !strings.Contains(err.Error(), "hash mismatch") {
		t.Errorf("hash error does not name the hash: %v", err)
	}
	if _, _, _, err := decompress(setU64(zs, hash, 1), ReaderOptions{SkipHashCheck: true}); err != nil {
		t.Errorf("SkipHashCheck: %v", err)
	}
	_, _, _, err = decompress(corrupt, ReaderOptions{})
	if !strings.HasPrefix(err.Error(), "Could not decompress embedded file contents: ") {
		t.Errorf("codec error text %q lacks LLVM's prefix", err)
	}
}

// TestDecompressNoAllocation: a header claiming 2^62 bytes, or a frame
// asking for a 1 GiB window, is refused without allocating for it.
func TestDecompressNoAllocation(t *testing.T) {
	// A zstd frame with a 1 GiB window (descriptor 0xa0) and one raw block.
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa0, 0x09, 0x00, 0x00, 'x'}
	sum := md5.Sum([]byte("x"))
	hugeWindow := (Header{Version: 3, Method: MethodZstd, TotalSize: uint64(32 + len(frame)), UncompressedSize: 1,
		Hash: binary.LittleEndian.Uint64(sum[:])})
	hw, _ := hugeWindow.AppendBinary(nil)
	hw = append(hw, frame...)
	zs, _ := compress(t, []byte("payload"), DefaultWriterOptions())
	for name, in := range map[string][]byte{"huge-declared": setU64(zs, 16, 1<<62), "huge-window": hw} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, _, err := decompress(in, ReaderOptions{MaxUncompressedSize: 1 << 63})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s accepted", name)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: allocated %d bytes", name, grew)
		}
	}
	// The same window fits once the frame says so through its content.
	frame[5] = 0x00 // 1 KiB window
	ok := append(hw[:32:32], frame...)
	if got, _, _, err := decompress(ok, ReaderOptions{}); err != nil || string(got) != "x" {
		t.Errorf("small window: %q, %v", got, err)
	}
}

// TestDecompressTruncation cuts a valid CCOB at every length.
func TestDecompressTruncation(t *testing.T) {
	for _, m := range []Method{MethodZstd, MethodZlib} {
		c, _ := compress(t, refBundle(t), WriterOptions{Method: m})
		for n := range len(c) {
			if _, _, _, err := decompress(c[:n], ReaderOptions{}); err == nil {
				t.Errorf("%s: prefix of %d bytes accepted", m, n)
			}
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

func TestDecompressWriterError(t *testing.T) {
	data := semiCompressible(9, 1<<20)
	for _, m := range []Method{MethodZstd, MethodZlib} {
		c, _ := compress(t, data, WriterOptions{Method: m})
		_, _, err := Decompress(&failWriter{n: 1000}, bytes.NewReader(c), int64(len(c)), ReaderOptions{})
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: got %v", m, err)
		}
	}
}

func TestCompressErrors(t *testing.T) {
	never := iotest.ErrReader(errors.New("source must not be read"))
	tests := []struct {
		name string
		src  io.Reader
		size int64
		opt  WriterOptions
		want error
	}{
		{"v2-4GiB", never, 1 << 32, WriterOptions{Version: 2, Method: MethodZstd}, ErrV2UncompressedMax},
		{"version1", never, 1, WriterOptions{Version: 1}, ErrOption},
		{"version4", never, 1, WriterOptions{Version: 4}, ErrOption},
		{"method", never, 1, WriterOptions{Method: 5}, ErrUnknownMethod},
		{"zlib-level", never, 1, WriterOptions{Method: MethodZlib, Level: 10}, ErrOption},
		{"window-not-pow2", never, 1, WriterOptions{Method: MethodZstd, WindowSize: 3000}, ErrOption},
		{"window-too-big", never, 1, WriterOptions{Method: MethodZstd, WindowSize: 1 << 29}, ErrOption},
		{"concurrency", never, 1, WriterOptions{Method: MethodZstd, Concurrency: -1}, ErrOption},
		{"negative-size", never, -1, DefaultWriterOptions(), ErrOption},
		{"short", strings.NewReader("abc"), 4, DefaultWriterOptions(), ErrSourceSize},
		{"long", strings.NewReader("abcde"), 4, WriterOptions{Method: MethodZlib}, ErrSourceSize},
		{"read-error", iotest.ErrReader(io.ErrClosedPipe), 4, DefaultWriterOptions(), io.ErrClosedPipe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compress(&memFile{}, tc.src, tc.size, tc.opt)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestMemoryBounded streams 256 MiB through Compress and Decompress.
// With a small window, allocations must stay far below the data size; with
// the default window (which spans the input, for the ratio) they must stay
// near the input size, never the input plus the output LLVM holds.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 256 << 20
	for _, tc := range []struct {
		name          string
		window        int
		compressMax   uint64 // beyond twice the compressed size
		decompressMax uint64
	}{
		{"8MiB-window", 8 << 20, 48 << 20, 40 << 20},
		{"default-window", 0, n + 32<<20, n + 32<<20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := DefaultWriterOptions()
			opt.WindowSize = tc.window
			var f memFile
			grew, h, err := allocated(func() (Header, error) {
				return Compress(&f, io.LimitReader(&patternReader{}, n), n, opt)
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Compress allocated %d MiB", grew>>20)
			if grew > tc.compressMax+uint64(len(f.b))*2 {
				t.Errorf("Compress allocated %d MiB for a %d MiB input", grew>>20, n>>20)
			}
			grew, h2, err := allocated(func() (Header, error) {
				h, _, err := Decompress(io.Discard, bytes.NewReader(f.b), int64(len(f.b)), ReaderOptions{})
				return h, err
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("compressed %d MiB to %d bytes; Decompress allocated %d MiB", n>>20, len(f.b), grew>>20)
			if grew > tc.decompressMax {
				t.Errorf("Decompress allocated %d MiB for a %d MiB output", grew>>20, n>>20)
			}
			if h != h2 || h.UncompressedSize != n {
				t.Errorf("headers %+v, %+v", h, h2)
			}
		})
	}
}

func allocated(f func() (Header, error)) (uint64, Header, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, err := f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, h, err
}

// patternReader yields a slowly varying, compressible byte stream.
type patternReader struct{ i uint64 }

func (p *patternReader) Read(b []byte) (int, error) {
	for k := range b {
		p.i++
		b[k] = byte(p.i>>3) ^ byte(p.i>>13)
	}
	return len(b), nil
}

// seekDiscard is a WriteSeeker that keeps nothing.
type seekDiscard struct{ pos, end int64 }

func (s *seekDiscard) Write(p []byte) (int, error) {
	s.pos += int64(len(p))
	s.end = max(s.end, s.pos)
	return len(p), nil
}

func (s *seekDiscard) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += s.pos
	case io.SeekEnd:
		off += s.end
	}
	s.pos = off
	return off, nil
}

// TestDecompressDeferred: the output is complete when DecompressDeferred
// returns, and the hash verdict comes from check, the same on every call.
func TestDecompressDeferred(t *testing.T) {
	data := semiCompressible(9, 3<<20)
	good, _ := compress(t, data, DefaultWriterOptions())
	bad := bytes.Clone(good)
	bad[24] ^= 1 // the hash field of a version 3 header
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{{"good", good, nil}, {"bad-hash", bad, ErrHashMismatch}} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, n, check, err := DecompressDeferred(&out, bytes.NewReader(tc.in), int64(len(tc.in)), ReaderOptions{})
			if err != nil || n != int64(len(tc.in)) {
				t.Fatalf("DecompressDeferred = %d, %v", n, err)
			}
			if !bytes.Equal(out.Bytes(), data) {
				t.Fatal("output incomplete or wrong before check")
			}
			for range 2 {
				if err := check(); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Fatalf("check() = %v, want %v", err, tc.want)
				}
			}
		})
	}
}
