package offloadbin

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rules-offload/rules_offload/internal/hostile"
)

// vector152 is the output of
// llvm-offload-binary-22 --image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp
// with a.o = "AAAA" (docs/provenance.md#offload-binary).
func vector152(t testing.TB) []byte {
	t.Helper()
	h := strings.Join([]string{
		"10ff10ad", "01000000", "9800000000000000", "2000000000000000", "2800000000000000",
		"0100", "0100", "00000000", "4800000000000000", "0200000000000000", "9000000000000000", "0400000000000000",
		"6900000000000000", "8700000000000000", "6e00000000000000", "7500000000000000",
		"00", hex.EncodeToString([]byte("arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx906\x00")), "0000",
		hex.EncodeToString([]byte("AAAA")), "00000000",
	}, "")
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 152 {
		t.Fatalf("vector is %d bytes", len(b))
	}
	return b
}

var vectorStrings = []KV{{"arch", "gfx906"}, {"triple", "amdgcn-amd-amdhsa"}}

func TestWriteVector(t *testing.T) {
	var buf bytes.Buffer
	n, err := Write(&buf, ImageObject, OffloadOpenMP, 0, vectorStrings, strings.NewReader("AAAA"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := vector152(t)
	if n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("Write = %d bytes\n%s\nwant\n%s", n, hex.Dump(buf.Bytes()), hex.Dump(want))
	}
}

func TestReadVector(t *testing.T) {
	b := vector152(t)
	images, size, err := Read(bytes.NewReader(b), 0, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if size != 152 || len(images) != 1 {
		t.Fatalf("size %d, %d images", size, len(images))
	}
	im := images[0]
	if im.ImageKind != ImageObject || im.OffloadKind != OffloadOpenMP || im.Flags != 0 {
		t.Errorf("kinds %v %v %d", im.ImageKind, im.OffloadKind, im.Flags)
	}
	if !reflect.DeepEqual(im.Strings, vectorStrings) {
		t.Errorf("strings %q", im.Strings)
	}
	if im.Triple() != "amdgcn-amd-amdhsa" || im.Arch() != "gfx906" {
		t.Errorf("triple %q arch %q", im.Triple(), im.Arch())
	}
	if im.Offset != 0x90 || im.Size != 4 {
		t.Errorf("image at %#x+%d", im.Offset, im.Size)
	}
	data, _ := io.ReadAll(im.Open())
	if string(data) != "AAAA" {
		t.Errorf("image %q", data)
	}
}

func TestKindNames(t *testing.T) {
	for _, tc := range []struct {
		ext, name, objdump string
		k                  ImageKind
	}{
		{"o", "o", "elf", ImageObject},
		{"bc", "bc", "llvm ir", ImageBitcode},
		{"cubin", "cubin", "cubin", ImageCubin},
		{"fatbin", "fatbin", "fatbinary", ImageFatbinary},
		{"s", "s", "ptx", ImagePTX},
		{"spv", "spv", "<none>", ImageNone}, // LLVM 22 does not map spv
		{"", "none", "<none>", ImageNone},
		{"O", "none", "<none>", ImageNone},
	} {
		if k := ParseImageKind(tc.ext); k != tc.k {
			t.Errorf("ParseImageKind(%q) = %v", tc.ext, k)
		}
	}
	if ImageSPIRV.Ext() != "" || ImageSPIRV.ObjdumpName() != "<none>" || ImageSPIRV.String() != "spv" {
		t.Errorf("SPIRV names %q %q %q", ImageSPIRV.Ext(), ImageSPIRV.ObjdumpName(), ImageSPIRV)
	}
	if ImageKind(9).String() != "ImageKind(9)" {
		t.Errorf("unknown kind %q", ImageKind(9))
	}
	for s, k := range map[string]OffloadKind{"openmp": 1, "cuda": 2, "hip": 4, "sycl": 8, "none": 0, "HIP": 0} {
		if ParseOffloadKind(s) != k {
			t.Errorf("ParseOffloadKind(%q) = %d", s, ParseOffloadKind(s))
		}
	}
	if OffloadKind(3).String() != "none" || OffloadHIP.String() != "hip" {
		t.Errorf("offload kind names")
	}
}

func TestWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Write(&buf, 0, 0, 0, []KV{{"a", "b\x00"}}, strings.NewReader(""), 0); !errors.Is(err, ErrNUL) {
		t.Errorf("NUL value: %v", err)
	}
	if _, err := Write(&buf, 0, 0, 0, nil, strings.NewReader("abc"), 4); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short image: %v", err)
	}
}

// Every prefix of a valid binary is rejected with a typed error: invalid
// data below a header and an entry (72 bytes, LLVM 22's minimum), an
// unexpected end from there on (Size says 152), as LLVM 22 words them.
func TestReadTruncation(t *testing.T) {
	b := vector152(t)
	for n := 0; n < len(b); n++ {
		_, _, err := Read(bytes.NewReader(b[:n]), 0, int64(n))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("prefix %d: %v", n, err)
		}
		want := ErrTruncated
		if n < headerSize+entrySize {
			want = ErrFormat
		}
		if !errors.Is(err, want) {
			t.Errorf("prefix %d: %v, want %v", n, err, want)
		}
	}
}

// Hand-corrupted fields, each checked against the sentinel it must produce.
func TestReadCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  int
		val  uint64
		size int // bytes to overwrite
		want error
	}{
		{"magic", 0, 0x11, 1, ErrFormat},
		{"version 0", 4, 0, 4, ErrFormat},
		{"version 4", 4, 4, 4, ErrFormat},
		{"size past end", 8, 160, 8, ErrTruncated},
		{"size below header", 8, 16, 8, ErrTruncated},
		{"entry past end", 16, 120, 8, ErrTruncated},
		// LLVM 22 reads an entry that overlaps the header; we refuse it,
		// unless LLVM's own checks already do (here the image offset is
		// then the entry's first bytes, 0x10001, past the end).
		{"entry overlaps header", 16, 0, 8, ErrFormat},
		{"overlapping entry past end", 16, 8, 8, ErrTruncated},
		{"entry size huge", 24, 1 << 62, 8, ErrTruncated},
		{"string offset", 0x28, 150, 8, ErrTruncated},
		{"string count", 0x30, 1 << 60, 8, ErrTruncated},
		{"image offset", 0x38, 153, 8, ErrTruncated},
		{"image size", 0x40, 9, 8, ErrTruncated},
		{"image size wraps", 0x40, ^uint64(0) - 0x80, 8, ErrTruncated},
		{"key offset", 0x48, 152, 8, ErrTruncated},
	} {
		b := vector152(t)
		var v [8]byte
		le.PutUint64(v[:], tc.val)
		copy(b[tc.off:tc.off+tc.size], v[:tc.size])
		_, _, err := Read(bytes.NewReader(b), 0, int64(len(b)))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestReadUnterminated(t *testing.T) {
	b := vector152(t)
	le.PutUint64(b[0x50:], 0x90) // value -> "AAAA" + padding
	copy(b[0x94:], "BBBB")       // padding no longer ends the string
	if _, _, err := Read(bytes.NewReader(b), 0, int64(len(b))); !errors.Is(err, ErrTruncated) {
		t.Fatalf("unterminated value: %v", err)
	}
}

func TestReadAll(t *testing.T) {
	v := vector152(t)
	in := append(append(append([]byte{}, v...), v...), make([]byte, 24)...)
	images, err := ReadAll(bytes.NewReader(in), int64(len(in)))
	if err != nil || len(images) != 2 || images[1].Offset != 152+0x90 || images[1].BinaryOffset != 152 {
		t.Fatalf("ReadAll: %v, %+v", err, images)
	}
	in[len(in)-3] = 1
	if _, err := ReadAll(bytes.NewReader(in), int64(len(in))); !errors.Is(err, ErrFormat) {
		t.Fatalf("junk after binaries: %v", err)
	}
}

// v2Vector builds a version 2 binary by hand from the layout of
// docs/provenance.md#offload-binary-v2: 32-byte header (EntriesOffset, EntriesCount), two 40-byte entries,
// 24-byte string entries {key, value, value size}, one shared string table,
// then the images back to back.
func v2Vector(t testing.TB, version uint32) []byte {
	hdr := 32
	if version >= 3 {
		hdr = 40
	}
	var b []byte
	u16 := func(v uint16) { b = le.AppendUint16(b, v) }
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	H := uint64(hdr)
	se := H + 80                                       // string entries start
	tab := se + 3*24                                   // string table start
	table := "\x00arch\x00triple\x00a\x00b\x00x86\x00" // "a\0b" value uses size 3
	img := (tab + uint64(len(table)) + 7) &^ 7
	size := (img + 4 + 3 + 7) &^ 7
	b = append(b, Magic...)
	u32(version)
	u64(size)
	u64(H)
	u64(2)
	if version >= 3 {
		u64(0)
	}
	// entry 0: bitcode/hip, two strings, image "IMG0"
	u16(2)
	u16(4)
	u32(0)
	u64(se)
	u64(2)
	u64(img)
	u64(4)
	// entry 1: metadata only flag, one string, image "xyz"
	u16(0)
	u16(8)
	u32(1)
	u64(se + 48)
	u64(1)
	u64(img + 4)
	u64(3)
	u64(tab + 1)  // arch
	u64(tab + 13) // "a\0b"
	u64(3)
	u64(tab + 6)  // triple
	u64(tab + 17) // x86
	u64(3)
	u64(tab + 1) // arch
	u64(tab + 0) // ""
	u64(0)
	b = append(b, table...)
	for uint64(len(b)) < img {
		b = append(b, 0)
	}
	b = append(b, "IMG0xyz"...)
	for uint64(len(b)) < size {
		b = append(b, 0)
	}
	return b
}

func checkV2(t *testing.T, images []Image, compressed bool) {
	t.Helper()
	if len(images) != 2 {
		t.Fatalf("%d images", len(images))
	}
	want := [][]KV{{{"arch", "a\x00b"}, {"triple", "x86"}}, {{"arch", ""}}}
	data := []string{"IMG0", "xyz"}
	for i, im := range images {
		if !reflect.DeepEqual(im.Strings, want[i]) || im.Index != i || im.Compressed != compressed {
			t.Errorf("image %d: %+v", i, im)
		}
		got, err := io.ReadAll(im.Open())
		if err != nil || string(got) != data[i] {
			t.Errorf("image %d data %q %v", i, got, err)
		}
	}
	if images[0].ImageKind != ImageBitcode || images[0].OffloadKind != OffloadHIP || images[1].Flags != 1 || images[1].OffloadKind != OffloadSYCL {
		t.Errorf("entry fields %+v", images)
	}
}

func TestReadV2(t *testing.T) {
	for _, v := range []uint32{2, 3} {
		b := v2Vector(t, v)
		images, size, err := Read(bytes.NewReader(b), 0, int64(len(b)))
		if err != nil || size != int64(len(b)) {
			t.Fatalf("v%d: %v size %d", v, err, size)
		}
		checkV2(t, images, false)
	}
}

// compressV3 compresses everything after the 40-byte header, as LLVM main's
// OffloadBinary::write(..., compression::Params) does.
func compressV3(t testing.TB, raw []byte, useZstd bool) []byte {
	var body bytes.Buffer
	if useZstd {
		enc, _ := zstd.NewWriter(&body)
		enc.Write(raw[40:])
		enc.Close()
	} else {
		zw := zlib.NewWriter(&body)
		zw.Write(raw[40:])
		zw.Close()
	}
	out := append([]byte{}, raw[:40]...)
	le.PutUint64(out[8:], uint64(40+body.Len()))
	le.PutUint64(out[32:], uint64(len(raw)))
	out = append(out, body.Bytes()...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	return out
}

func TestReadV3Compressed(t *testing.T) {
	raw := v2Vector(t, 3)
	for _, z := range []bool{false, true} {
		b := compressV3(t, raw, z)
		v1 := vector152(t)
		in := append(append([]byte{}, b...), v1...) // a v1 binary follows
		images, err := ReadAll(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			t.Fatalf("zstd=%v: %v", z, err)
		}
		checkV2(t, images[:2], true)
		if len(images) != 3 || images[2].Arch() != "gfx906" {
			t.Fatalf("following v1 binary: %+v", images)
		}
		// Limits are enforced before inflating.
		if _, _, err := Read(bytes.NewReader(b), 0, int64(len(b)), WithMaxInflatedSize(int64(len(raw)-1))); !errors.Is(err, ErrTooLarge) {
			t.Errorf("limit: %v", err)
		}
		// A header that lies about the inflated size is rejected.
		bad := append([]byte{}, b...)
		le.PutUint64(bad[32:], uint64(len(raw)+8))
		if _, _, err := Read(bytes.NewReader(bad), 0, int64(len(bad))); !errors.Is(err, ErrFormat) {
			t.Errorf("size mismatch: %v", err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	kvs := []KV{{"triple", "nvptx64-nvidia-cuda"}, {"arch", "sm_90"}, {"", ""}, {"k", "arch"}, {"arch", "sm_90a"}}
	img := bytes.Repeat([]byte{0xab}, 1001)
	var buf bytes.Buffer
	n, err := Write(&buf, ImageCubin, OffloadCuda, 7, kvs, bytes.NewReader(img), int64(len(img)))
	if err != nil || n != int64(buf.Len()) || n%8 != 0 {
		t.Fatalf("Write: %v, n %d len %d", err, n, buf.Len())
	}
	images, size, err := Read(bytes.NewReader(buf.Bytes()), 0, n)
	if err != nil || size != n {
		t.Fatal(err)
	}
	im := images[0]
	if !reflect.DeepEqual(im.Strings, kvs) || im.Flags != 7 || im.ImageKind != ImageCubin || im.OffloadKind != OffloadCuda {
		t.Fatalf("round trip: %+v", im)
	}
	if a, _ := im.Get("arch"); a != "sm_90a" {
		t.Errorf("Get returns %q, want the last value", a)
	}
	got, _ := io.ReadAll(im.Open())
	if !bytes.Equal(got, img) {
		t.Error("image bytes differ")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(vector152(f))
	f.Add(v2Vector(f, 2))
	f.Add(v2Vector(f, 3))
	f.Add(compressV3(f, v2Vector(f, 3), false))
	f.Add(compressV3(f, v2Vector(f, 3), true))
	f.Add(append(vector152(f), make([]byte, 16)...))
	f.Add(hostile.OffloadBinaryBomb(4096, "gfx90a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		images, err := ReadAll(bytes.NewReader(b), int64(len(b)), WithMaxInflatedSize(1<<20))
		if err != nil {
			return
		}
		for _, im := range images {
			if im.Size < 0 || im.Offset < 0 {
				t.Fatalf("bad image location %+v", im)
			}
			if _, err := io.Copy(io.Discard, im.Open()); err != nil {
				t.Fatalf("accepted image unreadable: %v", err)
			}
			// What was accepted must be writable again (v1 needs NUL-free strings).
			ok := true
			for _, kv := range im.Strings {
				ok = ok && !hasNUL(kv.Key) && !hasNUL(kv.Value)
			}
			if !ok {
				continue
			}
			var out bytes.Buffer
			if _, err := Write(&out, im.ImageKind, im.OffloadKind, im.Flags, im.Strings, im.Open(), im.Size); err != nil {
				t.Fatalf("rewrite: %v", err)
			}
			again, _, err := Read(bytes.NewReader(out.Bytes()), 0, int64(out.Len()))
			if err != nil || !reflect.DeepEqual(again[0].Strings, im.Strings) {
				t.Fatalf("rewrite not readable: %v", err)
			}
			want, _ := io.ReadAll(im.Open())
			got, _ := io.ReadAll(again[0].Open())
			if !bytes.Equal(got, want) || again[0].ImageKind != im.ImageKind || again[0].OffloadKind != im.OffloadKind || again[0].Flags != im.Flags {
				t.Fatalf("rewrite changed the image: %+v, %d bytes, was %+v, %d bytes", again[0], len(got), im, len(want))
			}
		}
	})
}
