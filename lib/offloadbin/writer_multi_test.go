package offloadbin

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// twoEntries is the input of the hand-derived vectors below: two images
// sharing triple (deduplicated across entries) and with "amdhsa" stored as
// the tail of "amdgcn-amd-amdhsa".
func twoEntries() []Entry {
	return []Entry{
		{ImageKind: ImageObject, OffloadKind: OffloadOpenMP,
			Strings: []KV{{"arch", "gfx906"}, {"triple", "amdgcn-amd-amdhsa"}},
			Image:   strings.NewReader("AAAA"), Size: 4},
		{ImageKind: ImageBitcode, OffloadKind: OffloadHIP,
			Strings: []KV{{"arch", "gfx90a"}, {"triple", "amdgcn-amd-amdhsa"}, {"os", "amdhsa"}},
			Image:   strings.NewReader("BBBBB"), Size: 5},
	}
}

// The string table, worked out by hand from LLVM's StringTableBuilder(ELF)
// finalize: strings sorted by their bytes from the end, descending (a string
// that runs out sorts lowest), a string that is a suffix of the previous one
// reuses its tail:
//
//	os(s) arch(h) triple(e) amdgcn-amd-amdhsa(a,s,...) amdhsa(tail) gfx90a(a,0) gfx906(6)
//	0 "\0"  1 os  4 arch  9 triple  16 amdgcn-amd-amdhsa  27 amdhsa  34 gfx90a  41 gfx906  (48 bytes)
const handTable = "\x00os\x00arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx90a\x00gfx906\x00"

func hexVector(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(parts, ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// handV2 is LLVM main's OffloadBinary::write for twoEntries at version 2
// (PR #169425): 32-byte header, entries at 32, string entries at 112 (2+3 of
// 24 bytes), table at 232, images at alignTo(232+48, 8) = 280 and 284,
// Size alignTo(289, 8) = 296.
func handV2(t testing.TB) []byte {
	b := hexVector(t,
		"10ff10ad", "02000000", "2801000000000000", "2000000000000000", "0200000000000000",
		// entry 0: Object, OpenMP, strings at 112 (2), image at 280 (4)
		"0100", "0100", "00000000", "7000000000000000", "0200000000000000", "1801000000000000", "0400000000000000",
		// entry 1: Bitcode, HIP, strings at 160 (3), image at 284 (5)
		"0200", "0400", "00000000", "a000000000000000", "0300000000000000", "1c01000000000000", "0500000000000000",
		// {key, value, value size}, table at 232
		"ec00000000000000", "1101000000000000", "0600000000000000", // arch=gfx906
		"f100000000000000", "f800000000000000", "1100000000000000", // triple=amdgcn-amd-amdhsa
		"ec00000000000000", "0a01000000000000", "0600000000000000", // arch=gfx90a
		"f100000000000000", "f800000000000000", "1100000000000000", // triple
		"e900000000000000", "0301000000000000", "0600000000000000", // os=amdhsa
		hex.EncodeToString([]byte(handTable)),
		hex.EncodeToString([]byte("AAAABBBBB")), "00000000000000",
	)
	if len(b) != 296 {
		t.Fatalf("handV2 is %d bytes", len(b))
	}
	return b
}

// handV3 is the same at version 3, uncompressed (what LLVM main writes by
// default): 40-byte header with InflatedSize 0, so every offset moves by 8;
// images at 288 and 292, Size alignTo(297, 8) = 304.
func handV3(t testing.TB) []byte {
	b := hexVector(t,
		"10ff10ad", "03000000", "3001000000000000", "2800000000000000", "0200000000000000", "0000000000000000",
		"0100", "0100", "00000000", "7800000000000000", "0200000000000000", "2001000000000000", "0400000000000000",
		"0200", "0400", "00000000", "a800000000000000", "0300000000000000", "2401000000000000", "0500000000000000",
		"f400000000000000", "1901000000000000", "0600000000000000",
		"f900000000000000", "0001000000000000", "1100000000000000",
		"f400000000000000", "1201000000000000", "0600000000000000",
		"f900000000000000", "0001000000000000", "1100000000000000",
		"f100000000000000", "0b01000000000000", "0600000000000000",
		hex.EncodeToString([]byte(handTable)),
		hex.EncodeToString([]byte("AAAABBBBB")), "00000000000000",
	)
	if len(b) != 304 {
		t.Fatalf("handV3 is %d bytes", len(b))
	}
	return b
}

func TestWriteEntriesVectors(t *testing.T) {
	for _, tc := range []struct {
		version uint32
		want    []byte
	}{{2, handV2(t)}, {3, handV3(t)}} {
		var buf bytes.Buffer
		n, err := WriteEntries(&buf, tc.version, twoEntries(), NoCompression)
		if err != nil {
			t.Fatalf("v%d: %v", tc.version, err)
		}
		if n != int64(len(tc.want)) || !bytes.Equal(buf.Bytes(), tc.want) {
			t.Errorf("v%d: %d bytes\n%s\nwant\n%s", tc.version, n, hex.Dump(buf.Bytes()), hex.Dump(tc.want))
		}
	}
}

// checkTwo checks what our reader (tested on hand-made vectors) returns for
// a binary written from twoEntries.
func checkTwo(t *testing.T, images []Image, version uint32, compressed bool) {
	t.Helper()
	if len(images) != 2 {
		t.Fatalf("%d images", len(images))
	}
	want := twoEntries()
	data := []string{"AAAA", "BBBBB"}
	for i, im := range images {
		e := want[i]
		if im.Version != version || im.Index != i || im.Compressed != compressed ||
			im.ImageKind != e.ImageKind || im.OffloadKind != e.OffloadKind || !reflect.DeepEqual(im.Strings, e.Strings) {
			t.Errorf("image %d: %+v", i, im)
		}
		if got, err := io.ReadAll(im.Open()); err != nil || string(got) != data[i] {
			t.Errorf("image %d data %q %v", i, got, err)
		}
	}
}

func TestWriteEntriesReadBack(t *testing.T) {
	for _, v := range []uint32{2, 3} {
		var buf bytes.Buffer
		if _, err := WriteEntries(&buf, v, twoEntries(), NoCompression); err != nil {
			t.Fatal(err)
		}
		images, err := ReadAll(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		checkTwo(t, images, v, false)
	}
}

// inflate decompresses a codec stream with a decoder independent of the
// writer's encoder settings.
func inflate(t *testing.T, comp Compression, b []byte) []byte {
	t.Helper()
	var r io.Reader
	if comp == Zstd {
		d, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		r = d
	} else {
		z, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = z
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeCompressed writes twoEntries as compressed version 3 and checks the
// header against LLVM main's compressing write: the uncompressed header with
// Size = 40 + compressed size and InflatedSize = 304, the body after it, then
// zero padding to 8.
func writeCompressed(t *testing.T, comp Compression) (file, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	n, err := WriteEntries(&buf, 3, twoEntries(), comp)
	if err != nil {
		t.Fatal(err)
	}
	file = buf.Bytes()
	if n != int64(len(file)) || n%8 != 0 {
		t.Fatalf("%v: wrote %d, len %d", comp, n, len(file))
	}
	raw := handV3(t)
	size := le.Uint64(file[8:])
	if size <= 40 || size > uint64(len(file)) || alignUp(int64(size), 8) != int64(len(file)) {
		t.Fatalf("%v: Size %d, file %d", comp, size, len(file))
	}
	hdr := append([]byte{}, raw[:40]...)
	le.PutUint64(hdr[8:], size)
	le.PutUint64(hdr[32:], 304)
	if !bytes.Equal(file[:40], hdr) {
		t.Errorf("%v header\n%s\nwant\n%s", comp, hex.Dump(file[:40]), hex.Dump(hdr))
	}
	if tail := file[size:]; !bytes.Equal(tail, make([]byte, len(tail))) {
		t.Errorf("%v: padding %x", comp, tail)
	}
	body = file[40:size]
	if got := inflate(t, comp, body); !bytes.Equal(got, raw[40:]) {
		t.Errorf("%v: inflated body\n%s\nwant\n%s", comp, hex.Dump(got), hex.Dump(raw[40:]))
	}
	return file, body
}

func TestWriteEntriesCompressed(t *testing.T) {
	for _, comp := range []Compression{Zlib, Zstd} {
		file, body := writeCompressed(t, comp)
		switch comp {
		case Zlib: // zlib's compress2 at level 6 starts 78 9c
			if body[0] != 0x78 || body[1] != 0x9c {
				t.Errorf("zlib header %x", body[:2])
			}
		case Zstd:
			if !bytes.HasPrefix(body, zstdMagic) {
				t.Errorf("zstd magic %x", body[:4])
			}
		}
		// Round trip, with a v1 binary after it in the same section.
		in := append(append([]byte{}, file...), vector152(t)...)
		images, err := ReadAll(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			t.Fatalf("%v: %v", comp, err)
		}
		if len(images) != 3 || images[2].Arch() != "gfx906" || images[2].BinaryOffset != int64(len(file)) {
			t.Fatalf("%v: %d images", comp, len(images))
		}
		checkTwo(t, images[:2], 3, true)
		// The inflate limit is checked against InflatedSize (304).
		if _, _, err := Read(bytes.NewReader(file), 0, int64(len(file)), WithMaxInflatedSize(303)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%v: limit 303: %v", comp, err)
		}
		if _, _, err := Read(bytes.NewReader(file), 0, int64(len(file)), WithMaxInflatedSize(304)); err != nil {
			t.Errorf("%v: limit 304: %v", comp, err)
		}
	}
}

// libzstd (the zstd command) must accept the frame LLVM would hand to
// ZSTD_decompress.
func TestWriteEntriesZstdCLI(t *testing.T) {
	tool, err := exec.LookPath("zstd")
	if err != nil {
		llvmtest.Missing(t, "zstd is not on PATH: the libzstd cross-check did not run")
	}
	_, body := writeCompressed(t, Zstd)
	cmd := exec.Command(tool, "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d: %v", err)
	}
	if !bytes.Equal(out, handV3(t)[40:]) {
		t.Errorf("zstd -d gives %d bytes", len(out))
	}
}

// Python's zlib module is libz: it must inflate our zlib stream.
func TestWriteEntriesZlibLibz(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		llvmtest.Missing(t, "python3 is not on PATH: the libz cross-check did not run")
	}
	_, body := writeCompressed(t, Zlib)
	cmd := exec.Command(py, "-c", "import sys,zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 zlib: %v", err)
	}
	if !bytes.Equal(out, handV3(t)[40:]) {
		t.Errorf("libz gives %d bytes", len(out))
	}
}

// Bodies larger than a zstd block, and larger than its window, round-trip
// through our reader, which bounds the zstd window by the inflated size.
func TestWriteEntriesLarge(t *testing.T) {
	for _, n := range []int{95000, 300000} { // 1.5 MB and 4.8 MB bodies
		largeRoundTrip(t, n)
	}
}

func largeRoundTrip(t *testing.T, n int) {
	big := bytes.Repeat([]byte("0123456789abcdef"), n)
	big[12345] = 'x'
	for _, comp := range []Compression{NoCompression, Zlib, Zstd} {
		entries := []Entry{
			{ImageKind: ImageCubin, Strings: []KV{{"triple", "nvptx64-nvidia-cuda"}}, Image: bytes.NewReader(big), Size: int64(len(big))},
			{ImageKind: ImagePTX, Image: strings.NewReader("ptx"), Size: 3},
		}
		var buf bytes.Buffer
		if _, err := WriteEntries(&buf, 3, entries, comp); err != nil {
			t.Fatal(err)
		}
		images, err := ReadAll(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil || len(images) != 2 {
			t.Fatalf("%v: %v", comp, err)
		}
		got, _ := io.ReadAll(images[0].Open())
		if !bytes.Equal(got, big) || images[1].Size != 3 || images[1].Offset != images[0].Offset+int64(len(big)) {
			t.Errorf("%v: images differ", comp)
		}
	}
}

// Version 2 values are sized, so they may hold NUL; keys may not.
func TestWriteEntriesBinaryValues(t *testing.T) {
	kvs := []KV{{"blob", "a\x00b"}, {"", ""}, {"b", "b"}, {"k", "\x00"}}
	var buf bytes.Buffer
	if _, err := WriteEntries(&buf, 2, []Entry{{Strings: kvs, Flags: 1, Image: strings.NewReader("")}}, NoCompression); err != nil {
		t.Fatal(err)
	}
	images, err := ReadAll(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil || len(images) != 1 || !reflect.DeepEqual(images[0].Strings, kvs) || images[0].Flags != 1 || images[0].Size != 0 {
		t.Fatalf("%v %+v", err, images)
	}
	if _, err := WriteEntries(&buf, 2, []Entry{{Strings: []KV{{"a\x00", "x"}}, Image: strings.NewReader("")}}, NoCompression); !errors.Is(err, ErrNUL) {
		t.Errorf("NUL key: %v", err)
	}
}

func TestWriteEntriesV1IsWrite(t *testing.T) {
	var buf bytes.Buffer
	e := Entry{ImageKind: ImageObject, OffloadKind: OffloadOpenMP, Strings: vectorStrings, Image: strings.NewReader("AAAA"), Size: 4}
	if _, err := WriteEntries(&buf, 1, []Entry{e}, NoCompression); err != nil || !bytes.Equal(buf.Bytes(), vector152(t)) {
		t.Fatalf("v1: %v\n%s", err, hex.Dump(buf.Bytes()))
	}
}

func TestWriteEntriesErrors(t *testing.T) {
	one := func() []Entry { return twoEntries()[:1] }
	for _, tc := range []struct {
		name    string
		version uint32
		entries []Entry
		comp    Compression
		want    error
	}{
		{"no entries", 2, nil, NoCompression, ErrNoEntries},
		{"v1 two entries", 1, twoEntries(), NoCompression, nil},
		{"v2 compressed", 2, one(), Zstd, nil},
		{"v1 compressed", 1, one(), Zlib, nil},
		{"version 4", 4, one(), NoCompression, nil},
		{"version 0", 0, one(), NoCompression, nil},
		{"bad codec", 3, one(), Compression(9), nil},
		{"negative size", 2, []Entry{{Image: strings.NewReader(""), Size: -1}}, NoCompression, nil},
		{"short image v2", 2, []Entry{{Image: strings.NewReader("ab"), Size: 3}}, NoCompression, io.ErrUnexpectedEOF},
		{"short image v3 zstd", 3, []Entry{{Image: strings.NewReader("ab"), Size: 3}}, Zstd, io.ErrUnexpectedEOF},
	} {
		var buf bytes.Buffer
		_, err := WriteEntries(&buf, tc.version, tc.entries, tc.comp)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if strings.HasSuffix(tc.name, "zstd") && buf.Len() != 0 {
			t.Errorf("%s: %d bytes written on error", tc.name, buf.Len())
		}
	}
}

func TestParseCompression(t *testing.T) {
	for s, want := range map[string]Compression{"": NoCompression, "none": NoCompression, "zlib": Zlib, "zstd": Zstd} {
		if c, err := ParseCompression(s); err != nil || c != want || (s != "" && c.String() != s) {
			t.Errorf("ParseCompression(%q) = %v, %v", s, c, err)
		}
	}
	if _, err := ParseCompression("lz4"); err == nil {
		t.Error("lz4 accepted")
	}
}

// Whatever is written must read back unchanged, compressed or not.
func FuzzWriteEntries(f *testing.F) {
	f.Add("arch", "gfx906", "triple", "amdgcn-amd-amdhsa", []byte("AAAA"), []byte("BBBBB"), uint8(0))
	f.Add("", "", "x", "a\x00b", []byte{}, []byte{0}, uint8(1))
	f.Add("k", "v", "k", "vv", []byte("same"), []byte("same"), uint8(2))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, img1, img2 []byte, comp uint8) {
		if hasNUL(k1) || hasNUL(k2) {
			return
		}
		c := Compression(comp % 3)
		entries := []Entry{
			{Strings: []KV{{k1, v1}, {k2, v2}}, Image: bytes.NewReader(img1), Size: int64(len(img1))},
			{ImageKind: ImageSPIRV, Strings: []KV{{k2, v1}}, Image: bytes.NewReader(img2), Size: int64(len(img2))},
		}
		var buf bytes.Buffer
		n, err := WriteEntries(&buf, 3, entries, c)
		if err != nil || n != int64(buf.Len()) || n%8 != 0 {
			t.Fatalf("write: %v (n %d)", err, n)
		}
		images, err := ReadAll(bytes.NewReader(buf.Bytes()), n)
		if err != nil || len(images) != 2 {
			t.Fatalf("read: %v", err)
		}
		for i, im := range images {
			if !reflect.DeepEqual(im.Strings, entries[i].Strings) {
				t.Errorf("image %d strings %q", i, im.Strings)
			}
			got, _ := io.ReadAll(im.Open())
			if want := [][]byte{img1, img2}[i]; !bytes.Equal(got, want) {
				t.Errorf("image %d data", i)
			}
		}
	})
}
