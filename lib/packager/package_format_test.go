package packager

import (
	"bytes"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// LLVM's 152-byte example (docs/provenance.md#offload-binary) (file=a.o "AAAA", triple, arch, kind=openmp)
// at version 2, derived by hand from LLVM main's OffloadBinary::write:
// header 32, entry at 32, string entries at 72 (arch, triple: the tool's
// DenseMap order), table at 120 = "\0arch\0triple\0amdgcn-amd-amdhsa\0gfx906\0"
// (38 bytes), image at alignTo(158, 8) = 160, Size 168.
func TestPackageFormatV2Vector(t *testing.T) {
	want, _ := hex.DecodeString(strings.Join([]string{
		"10ff10ad", "02000000", "a800000000000000", "2000000000000000", "0100000000000000",
		"0100", "0100", "00000000", "4800000000000000", "0200000000000000", "a000000000000000", "0400000000000000",
		"7900000000000000", "9700000000000000", "0600000000000000", // arch=gfx906
		"7e00000000000000", "8500000000000000", "1100000000000000", // triple=amdgcn-amd-amdhsa
		hex.EncodeToString([]byte("\x00arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx906\x00")), "0000",
		hex.EncodeToString([]byte("AAAA")), "00000000",
	}, ""))
	s, err := Sources([]string{"file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp"})
	if err != nil {
		t.Fatal(err)
	}
	s[0].Data, s[0].Size = strings.NewReader("AAAA"), 4
	var buf bytes.Buffer
	n, err := PackageFormat(&buf, s, Format{Version: 2})
	if err != nil || n != 168 || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("%v, %d bytes\n%s\nwant\n%s", err, n, hex.Dump(buf.Bytes()), hex.Dump(want))
	}
}

func sources(t *testing.T, files map[string]string, specs ...string) []Source {
	t.Helper()
	s, err := Sources(specs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		d := files[s[i].File]
		s[i].Data, s[i].Size = strings.NewReader(d), int64(len(d))
	}
	return s
}

// All sources go into one binary; .spv is SPIR-V from version 2 on (LLVM
// main's getImageKind), and stays unnamed at version 1 (LLVM 22's).
func TestPackageFormatOneBinary(t *testing.T) {
	files := map[string]string{"a.spv": "spirv", "b.o": "BC\xc0\xde", "c.o": "obj"}
	for _, f := range []Format{{Version: 1}, {Version: 2}, {Version: 3}, {Version: 3, Compression: offloadbin.Zlib}, {Version: 3, Compression: offloadbin.Zstd}} {
		var buf bytes.Buffer
		src := sources(t, files, "file=a.spv,file=b.o,triple=spirv64,kind=sycl", "file=c.o,triple=x86_64")
		if _, err := PackageFormat(&buf, src, f); err != nil {
			t.Fatal(err)
		}
		images, err := offloadbin.ReadAll(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil || len(images) != 3 {
			t.Fatalf("%+v: %v, %d images", f, err, len(images))
		}
		spv := offloadbin.ImageSPIRV
		if f.Version == 1 {
			spv = offloadbin.ImageNone
		}
		kinds := []offloadbin.ImageKind{spv, offloadbin.ImageBitcode, offloadbin.ImageObject}
		for i, im := range images {
			data, _ := io.ReadAll(im.Open())
			single := im.BinaryOffset == 0
			if im.ImageKind != kinds[i] || string(data) != files[src[i].File] || im.Version != max(f.Version, 1) ||
				single != (f.Version > 1 || i == 0) || im.Compressed != (f.Compression != offloadbin.NoCompression) {
				t.Errorf("%+v: image %d %+v", f, i, im)
			}
		}
	}
}

func TestPackageFormatEdges(t *testing.T) {
	var buf bytes.Buffer
	for _, v := range []uint32{1, 2, 3} {
		if n, err := PackageFormat(&buf, nil, Format{Version: v}); n != 0 || err != nil || buf.Len() != 0 {
			t.Errorf("v%d with no sources: %d %v", v, n, err)
		}
	}
	src := sources(t, map[string]string{"a.o": "A"}, "file=a.o")
	if _, err := PackageFormat(&buf, src, Format{Version: 1, Compression: offloadbin.Zstd}); err == nil {
		t.Error("compressed version 1 accepted")
	}
	if _, err := PackageFormat(&buf, src, Format{Version: 4}); err == nil {
		t.Error("version 4 accepted")
	}
}
