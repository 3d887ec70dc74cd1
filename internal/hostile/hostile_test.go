package hostile

import (
	"bytes"
	"crypto/md5"
	"debug/elf"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// The frames must be valid zstd: a generator bug would make every bomb
// test pass by an early "bad data" error instead of the limit under test.
func TestZstdFrameDecodes(t *testing.T) {
	raw := bytes.Repeat([]byte("metadata"), 20000) // 160,000 bytes: two Raw blocks
	frame := ZstdFrame(raw, 300<<10)
	d, err := zstd.NewReader(bytes.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), raw...), make([]byte, 300<<10)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("frame decodes to %d bytes, want raw (%d) then %d zeros", len(got), len(raw), 300<<10)
	}
}

func TestCCOBDecodes(t *testing.T) {
	var out bytes.Buffer
	b := CCOB([]byte("inner"), 1000)
	h, n, err := ccob.Decompress(&out, bytes.NewReader(b), int64(len(b)), ccob.ReaderOptions{SkipHashCheck: true})
	if err != nil || n != int64(len(b)) || h.UncompressedSize != 1005 || out.Len() != 1005 {
		t.Fatalf("Decompress: %v, span %d of %d, header %+v, %d bytes out", err, n, len(b), h, out.Len())
	}
}

func TestOffloadBinaryBombParses(t *testing.T) {
	b := OffloadBinaryBomb(1<<20, "gfx90a")
	ims, err := offloadbin.ReadAll(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ims) != 1 || ims[0].Size != 1<<20 || ims[0].Arch() != "gfx90a" || ims[0].Triple() != "amdgcn-amd-amdhsa" || !ims[0].Compressed ||
		ims[0].ImageKind != offloadbin.ImageObject || ims[0].OffloadKind != offloadbin.OffloadHIP {
		t.Fatalf("images = %+v", ims)
	}
	// 1 GiB declared costs tens of KiB, as in the attack measured.
	if n := len(OffloadBinaryBomb(1<<30, "gfx90a")); n > 40<<10 {
		t.Errorf("a 1 GiB bomb takes %d bytes; the RLE encoding should need about 32 KiB", n)
	}
}

func TestTextChainNests(t *testing.T) {
	b := TextChain(3)
	for i := 0; i < 3; i++ {
		if !bytes.HasPrefix(b, []byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ host-")) {
			t.Fatalf("level %d is not a text bundle: %q", i, b[:min(len(b), 60)])
		}
		at := bytes.Index(b, []byte("CCOB"))
		end := bytes.LastIndex(b, []byte("\n// __CLANG_OFFLOAD_BUNDLE____END__ hip"))
		var out bytes.Buffer
		if _, _, err := ccob.Decompress(&out, bytes.NewReader(b[at:end]), int64(end-at), ccob.ReaderOptions{}); err != nil {
			t.Fatalf("level %d: %v", i, err)
		}
		b = out.Bytes()
	}
	if string(b) != "device code" {
		t.Fatalf("innermost payload %q", b)
	}
}

// The hashes of the big zero runs must be right, or the bombs would stop
// at the hash check instead of costing what an attacker's file costs.
func TestZeroHashes(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 1.25 GiB")
	}
	for n, want := range zeroMD5 {
		h := md5.New()
		io.CopyN(h, zeroReader{}, n)
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("MD5 of %d zeros = %s, table says %s", n, got, want)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A hashed record passes the hash check, whatever the size of its zeros.
func TestCCOBHashedChecks(t *testing.T) {
	b := CCOBHashed([]byte("inner"), 3<<20+5)
	var out bytes.Buffer
	if _, _, err := ccob.Decompress(&out, bytes.NewReader(b), int64(len(b)), ccob.ReaderOptions{}); err != nil || out.Len() != 3<<20+10 {
		t.Fatalf("Decompress: %v, %d bytes", err, out.Len())
	}
}

// The ELF builders' objects read as built in debug/elf (extended
// numbering included), so a builder bug cannot pass for a reader's fix.
func TestELFBuildersParse(t *testing.T) {
	for _, n := range []int{10, 0xff00 + 5} {
		b := ELFLongNames(n, 30, 7)
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil || len(f.Sections) != n {
			t.Fatalf("ELFLongNames(%d): %v, %d sections", n, err, len(f.Sections))
		}
		if want := strings.Repeat("A", 30-(5*7)%30); f.Sections[5].Name != want {
			t.Errorf("ELFLongNames(%d): section 5 named %q, want %q", n, f.Sections[5].Name, want)
		}
	}
	f, err := elf.NewFile(bytes.NewReader(ELFLongSymbols(4, 30, 7)))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil || len(syms) != 4 || syms[3].Name != strings.Repeat("A", 30-21) || syms[3].Section != 1 ||
		elf.ST_BIND(syms[3].Info) != elf.STB_GLOBAL || elf.ST_TYPE(syms[3].Info) != elf.STT_FUNC {
		t.Errorf("ELFLongSymbols: %v, %+v", err, syms)
	}
	f, err = elf.NewFile(bytes.NewReader(ELFSymbolInSection(20224)))
	if err != nil {
		t.Fatal(err)
	}
	if syms, err = f.Symbols(); err != nil || len(syms) != 1 || syms[0].Name != "main" || syms[0].Section != 20224 || len(f.Sections) != 5 {
		t.Errorf("ELFSymbolInSection: %v, %+v, %d sections", err, syms, len(f.Sections))
	}
}

func TestArLongNamesParses(t *testing.T) {
	b := ArLongNames(3, 30, 7)
	r, err := ar.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		m, err := r.Next()
		if want := strings.Repeat("A", 30-(i*7)%30); err != nil || m.Name != want || m.Size != 0 {
			t.Fatalf("member %d: %v, %+v; want %q, empty", i, err, m, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after 3 members: %v", err)
	}
}
