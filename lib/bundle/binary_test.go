package bundle

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// refVector is the 151-byte bundle of docs/provenance.md#binary-bundle, transcribed by hand
// from clang-offload-bundler-22 output for -type=bc
// -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906 with
// inputs "HOSTDATA" and "DEV1".
func refVector(t testing.TB) []byte {
	t.Helper()
	h := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var v []byte
	v = append(v, "__CLANG_OFFLOAD_BUNDLE__"...)
	v = append(v, h("0200000000000000")...)
	v = append(v, h("8b00000000000000 0800000000000000 1e00000000000000")...)
	v = append(v, "host-x86_64-unknown-linux-gnu-"...)
	v = append(v, h("9300000000000000 0400000000000000 1d00000000000000")...)
	v = append(v, "hip-amdgcn-amd-amdhsa--gfx906"...)
	v = append(v, "HOSTDATA"...)
	v = append(v, "DEV1"...)
	if sum := md5.Sum(v); hex.EncodeToString(sum[:]) != "b07ed61e84c137b389b302dd74313ddc" {
		t.Fatalf("reference vector transcribed wrongly: md5 %x", sum)
	}
	return v
}

var refIDs = []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}

func TestWriteBinaryReferenceVector(t *testing.T) {
	want := refVector(t)
	var buf bytes.Buffer
	srcs := []io.Reader{strings.NewReader("HOSTDATA"), iotest.OneByteReader(strings.NewReader("DEV1"))}
	if err := WriteBinary(&buf, refIDs, []int64{8, 4}, srcs, 1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteBinary:\n got %x\nwant %x", buf.Bytes(), want)
	}
}

func TestReadBinaryReferenceVector(t *testing.T) {
	v := refVector(t)
	entries, err := ReadBinary(bytes.NewReader(v), int64(len(v)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{refIDs[0], 0x8b, 8}, {refIDs[1], 0x93, 4}}
	if len(entries) != len(want) {
		t.Fatalf("got %d entries, want %d", len(entries), len(want))
	}
	for i, e := range entries {
		if e != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, e, want[i])
		}
	}
	data, err := io.ReadAll(entries[0].Open(bytes.NewReader(v)))
	if err != nil || string(data) != "HOSTDATA" {
		t.Errorf("Open(host) = %q, %v", data, err)
	}
	if !IsBinary(v) || IsBinary(v[:23]) || IsBinary([]byte("CCOB")) {
		t.Error("IsBinary wrong")
	}
}

func TestLayout(t *testing.T) {
	// Header of refIDs ends at 32 + 2*24 + 30 + 29 = 139 (0x8b).
	tests := []struct {
		name    string
		sizes   []int64
		align   int64
		offsets []int64
		total   int64
	}{
		{"align1", []int64{8, 4}, 1, []int64{139, 147}, 151},
		{"align3", []int64{8, 4}, 3, []int64{141, 150}, 154},
		{"align7", []int64{1, 4}, 7, []int64{140, 147}, 151},
		{"align4096-empty-host", []int64{0, 4}, 4096, []int64{4096, 4096}, 4100},
		{"align4097", []int64{5, 4}, 4097, []int64{4097, 8194}, 8198},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			off, total, err := Layout(refIDs, tc.sizes, tc.align)
			if err != nil {
				t.Fatal(err)
			}
			if total != tc.total || len(off) != 2 || off[0] != tc.offsets[0] || off[1] != tc.offsets[1] {
				t.Errorf("Layout = %v, %d; want %v, %d", off, total, tc.offsets, tc.total)
			}
		})
	}
}

func TestLayoutErrors(t *testing.T) {
	if _, _, err := Layout(refIDs, []int64{1, 2}, 0); !errors.Is(err, ErrBadAlign) {
		t.Errorf("align 0: %v", err)
	}
	if _, _, err := Layout(refIDs, []int64{1, 2}, -4); !errors.Is(err, ErrBadAlign) {
		t.Errorf("align -4: %v", err)
	}
	if _, _, err := Layout(refIDs, []int64{1}, 1); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, _, err := Layout(refIDs, []int64{1, -1}, 1); err == nil {
		t.Error("negative size accepted")
	}
	if _, _, err := Layout(refIDs, []int64{1 << 62, 1 << 62}, 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("overflowing sizes: %v", err)
	}
	if _, _, err := Layout(refIDs, []int64{1, 1}, 1<<62+1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("overflowing alignment: %v", err)
	}
}

func TestWriteBinaryErrors(t *testing.T) {
	src := func(s string) io.Reader { return strings.NewReader(s) }
	tests := []struct {
		name  string
		ids   []string
		sizes []int64
		srcs  []io.Reader
		align int64
		want  error
	}{
		{"dup", []string{"a", "a"}, []int64{0, 0}, []io.Reader{src(""), src("")}, 1, ErrDuplicateID},
		{"empty-id", []string{""}, []int64{0}, []io.Reader{src("")}, 1, ErrBadID},
		{"long-id", []string{strings.Repeat("x", MaxIDLength+1)}, []int64{0}, []io.Reader{src("")}, 1, ErrBadID},
		{"short", []string{"a", "b"}, []int64{1, 3}, []io.Reader{src("x"), src("yy")}, 1, ErrSourceSize},
		{"long", []string{"a"}, []int64{1}, []io.Reader{src("xy")}, 1, ErrSourceSize},
		{"align0", []string{"a"}, []int64{1}, []io.Reader{src("x")}, 0, ErrBadAlign},
		{"read-error", []string{"a"}, []int64{4}, []io.Reader{iotest.ErrReader(io.ErrClosedPipe)}, 1, io.ErrClosedPipe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteBinary(io.Discard, tc.ids, tc.sizes, tc.srcs, tc.align)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	if err := WriteBinary(io.Discard, []string{"a"}, []int64{0}, nil, 1); err == nil {
		t.Error("missing sources accepted")
	}
}

func TestWriteBinaryNoEntries(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBinary(&buf, nil, nil, nil, 1); err != nil {
		t.Fatal(err)
	}
	want := append([]byte(Magic), 0, 0, 0, 0, 0, 0, 0, 0)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("got %x", buf.Bytes())
	}
	entries, err := ReadBinary(bytes.NewReader(want), int64(len(want)))
	if err != nil || len(entries) != 0 {
		t.Fatalf("ReadBinary = %v, %v", entries, err)
	}
}

// patch returns a copy of b with a little-endian u64 stored at off.
func patch(b []byte, off int, v uint64) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

func TestReadBinaryErrors(t *testing.T) {
	v := refVector(t)
	// Field offsets in the reference vector.
	const (
		count   = 0x18
		off0    = 0x20
		size0   = 0x28
		idLen0  = 0x30
		off1    = 0x56
		size1   = 0x5e
		idLen1  = 0x66
		hdrSize = 0x8b
	)
	// Two entries both named "a", payloads empty at the header end (82).
	dupID := []byte(Magic)
	dupID = binary.LittleEndian.AppendUint64(dupID, 2)
	for range 2 {
		dupID = binary.LittleEndian.AppendUint64(dupID, 82)
		dupID = binary.LittleEndian.AppendUint64(dupID, 0)
		dupID = binary.LittleEndian.AppendUint64(dupID, 1)
		dupID = append(dupID, 'a')
	}

	tests := []struct {
		name    string
		data    []byte
		want    error
		wantOff int64
	}{
		{"empty", nil, ErrNotBundle, 0},
		{"short-magic", v[:23], ErrNotBundle, 0},
		{"bad-magic", append([]byte("__CLANG_OFFLOAD_BUNDLE_X"), v[24:]...), ErrNotBundle, 0},
		{"ccob", []byte("CCOB\x03\x00\x01\x00" + strings.Repeat("\x00", 40)), ErrNotBundle, 0},
		{"no-count", v[:30], ErrTruncated, count},
		{"huge-count", patch(v, count, 1<<62), ErrTruncated, count},
		{"count-over-file", patch(v, count, 5), ErrTruncated, count},
		{"empty-id", patch(v, idLen0, 0), ErrBadEntry, idLen0},
		{"id-too-long", patch(v, idLen0, MaxIDLength+1), ErrBadEntry, idLen0},
		{"id-past-end", patch(v, idLen1, 1000), ErrTruncated, idLen1},
		{"offset-zero", patch(v, off0, 0), ErrBadEntry, off0},
		{"offset-in-header", patch(v, off1, hdrSize-1), ErrBadEntry, off1},
		{"offset-past-end", patch(v, off1, 152), ErrTruncated, off1},
		{"offset-huge", patch(v, off1, 1<<63), ErrTruncated, off1},
		{"size-past-end", patch(v, size1, 5), ErrTruncated, off1},
		{"size-overflow", patch(v, size0, 1<<64-1), ErrTruncated, off0},
		{"size-wraps", patch(patch(v, off1, 1<<63-1), size1, 1<<63-1), ErrTruncated, off1},
		{"last-payload-truncated", v[:len(v)-1], ErrTruncated, off1},
		{"duplicate-id", dupID, ErrDuplicateID, 32 + 25 + 24},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadBinary(bytes.NewReader(tc.data), int64(len(tc.data)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not a *FormatError", err)
			}
			if fe.Off != tc.wantOff {
				t.Errorf("offset %#x, want %#x (%v)", fe.Off, tc.wantOff, err)
			}
		})
	}
}

// TestReadBinaryTruncation cuts a valid bundle at every length: each prefix
// must fail (the last payload ends the file), never panic.
func TestReadBinaryTruncation(t *testing.T) {
	v := refVector(t)
	for n := range len(v) {
		_, err := ReadBinary(bytes.NewReader(v[:n]), int64(n))
		if err == nil {
			t.Errorf("prefix of %d bytes accepted", n)
		}
		if n >= len(Magic) && !errors.Is(err, ErrTruncated) {
			t.Errorf("prefix of %d bytes: %v, want ErrTruncated", n, err)
		}
	}
}

// TestReadBinaryLyingSize claims a size larger than the ReaderAt holds.
func TestReadBinaryLyingSize(t *testing.T) {
	v := refVector(t)
	_, err := ReadBinary(bytes.NewReader(v[:100]), int64(len(v)))
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
}

// countingReaderAt records the furthest byte read.
type countingReaderAt struct {
	r   io.ReaderAt
	max int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.max = max(c.max, off+int64(len(p)))
	return c.r.ReadAt(p, off)
}

func TestReadBinaryReadsOnlyHeader(t *testing.T) {
	v := refVector(t)
	c := &countingReaderAt{r: bytes.NewReader(v)}
	if _, err := ReadBinary(c, int64(len(v))); err != nil {
		t.Fatal(err)
	}
	if c.max > 0x8b {
		t.Errorf("read up to %#x, header ends at 0x8b", c.max)
	}
}

func TestFormatErrorText(t *testing.T) {
	v := refVector(t)
	_, err := ReadBinary(bytes.NewReader(v[:len(v)-1]), int64(len(v)-1))
	want := "bundle: entry 1 (hip-amdgcn-amd-amdhsa--gfx906): payload 0x93+0x4 past the end of the input (0x96) at offset 0x56"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
