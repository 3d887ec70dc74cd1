package packager

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// packed returns one v1 binary for the given image and metadata.
func packed(t testing.TB, data string, kv ...string) []byte {
	t.Helper()
	var kvs []offloadbin.KV
	for i := 0; i+1 < len(kv); i += 2 {
		kvs = append(kvs, offloadbin.KV{Key: kv[i], Value: kv[i+1]})
	}
	var buf bytes.Buffer
	if _, err := offloadbin.Write(&buf, offloadbin.ImageObject, offloadbin.OffloadHIP, 0, kvs, bytes.NewReader([]byte(data)), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// minimalELF hand-assembles a little-endian ELF64 relocatable object with
// sections: null, .shstrtab, and one section of type 0x6fff4c0b holding
// payload at an odd file offset (so offsets are not accidentally aligned).
func minimalELF(payload []byte, secType uint32) []byte {
	le := binary.LittleEndian
	shstr := []byte("\x00.shstrtab\x00.llvm.offloading\x00")
	const ehsize, shentsize = 64, 64
	shstrOff := uint64(ehsize)
	payOff := shstrOff + uint64(len(shstr)) + 1
	shoff := (payOff + uint64(len(payload)) + 7) &^ 7
	b := make([]byte, shoff+3*shentsize)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], 1)     // ET_REL
	le.PutUint16(b[18:], 62)    // EM_X86_64
	le.PutUint32(b[20:], 1)     // EV_CURRENT
	le.PutUint64(b[40:], shoff) // e_shoff
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[58:], shentsize)
	le.PutUint16(b[60:], 3) // e_shnum
	le.PutUint16(b[62:], 1) // e_shstrndx
	copy(b[shstrOff:], shstr)
	copy(b[payOff:], payload)
	sh := func(i int, name, typ uint32, off, size uint64) {
		s := b[shoff+uint64(i)*shentsize:]
		le.PutUint32(s[0:], name)
		le.PutUint32(s[4:], typ)
		le.PutUint64(s[24:], off)
		le.PutUint64(s[32:], size)
		le.PutUint64(s[48:], 1)
	}
	sh(1, 1, 3, shstrOff, uint64(len(shstr)))
	sh(2, 11, secType, payOff, uint64(len(payload)))
	return b
}

func archive(t testing.TB, members map[string][]byte, order ...string) []byte {
	t.Helper()
	var ms []ar.WriterMember
	for _, name := range order {
		d := members[name]
		ms = append(ms, ar.WriterMember{Name: name, Size: int64(len(d)), Data: bytes.NewReader(d)})
	}
	var buf bytes.Buffer
	if err := ar.WriteArchive(&buf, ms); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func scanBytes(b []byte, name string) ([]Found, error) {
	return Scan(bytes.NewReader(b), int64(len(b)), name)
}

func data(t *testing.T, f Found) string {
	t.Helper()
	b, err := io.ReadAll(f.Open())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestScan(t *testing.T) {
	two := append(packed(t, "one", "arch", "a"), packed(t, "two!", "arch", "b")...)
	elf := minimalELF(two, 0x6fff4c0b)
	otherType := minimalELF(two, 1) // .llvm.offloading by name only: ignored
	lib := archive(t, map[string][]byte{"x.o": elf, "raw.bin": two, "y.o": otherType, "t.txt": []byte("text")}, "t.txt", "x.o", "raw.bin", "y.o")
	nested := archive(t, map[string][]byte{"inner.a": lib}, "inner.a")
	for _, tc := range []struct {
		name    string
		in      []byte
		sources []string
	}{
		{"raw", two, []string{"in", "in"}},
		{"raw with zero padding", append(append([]byte{}, two...), make([]byte, 40)...), []string{"in", "in"}},
		{"elf", elf, []string{"in", "in"}},
		{"elf wrong type", otherType, nil},
		{"archive", lib, []string{"x.o", "x.o", "raw.bin", "raw.bin"}},
		{"nested archive", nested, []string{"x.o", "x.o", "raw.bin", "raw.bin"}},
		// Member names are labels only, not paths.
		{"member named outside", archive(t, map[string][]byte{"../up.o": two}, "../up.o"), []string{"../up.o", "../up.o"}},
		{"text", []byte("hello"), nil},
		{"empty", nil, nil},
	} {
		found, err := scanBytes(tc.in, "in")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var sources []string
		for i, f := range found {
			sources = append(sources, f.Source)
			want := []string{"one", "two!"}[i%2]
			if got := data(t, f); got != want {
				t.Errorf("%s: image %d is %q, want %q", tc.name, i, got, want)
			}
		}
		if len(sources) != len(tc.sources) || len(sources) > 0 && !equal(sources, tc.sources) {
			t.Errorf("%s: sources %q, want %q", tc.name, sources, tc.sources)
		}
	}
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestScanErrors(t *testing.T) {
	two := append(packed(t, "one"), packed(t, "two")...)
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"bitcode", []byte("BC\xc0\xde...."), ErrUnsupportedInput},
		{"thin archive", []byte("!<thin>\n"), ErrUnsupportedInput},
		{"truncated binary", two[:len(two)-9], offloadbin.ErrTruncated},
		{"junk after binaries", append(append([]byte{}, two...), 1), offloadbin.ErrFormat},
		// Fewer bytes than a header and an entry: invalid data to LLVM 22.
		{"bad binary in ELF", minimalELF(two[:100], 0x6fff4c0b), offloadbin.ErrFormat},
		{"bad binary in archive", archive(t, map[string][]byte{"m": two[:50]}, "m"), offloadbin.ErrFormat},
		{"truncated binary in archive", archive(t, map[string][]byte{"m": two[:80]}, "m"), offloadbin.ErrTruncated},
	} {
		if _, err := scanBytes(tc.in, "in"); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Archives nested past the limit are refused, not recursed into.
	in := packed(t, "x")
	for i := 0; i <= maxArchiveDepth; i++ {
		in = archive(t, map[string][]byte{"m": in}, "m")
	}
	if _, err := scanBytes(in, "in"); !errors.Is(err, ErrUnsupportedInput) {
		t.Errorf("deep nesting: %v", err)
	}
}

func FuzzScan(f *testing.F) {
	two := append(packed(f, "one", "arch", "a"), packed(f, "two!", "triple", "b")...)
	f.Add(two)
	f.Add(minimalELF(two, 0x6fff4c0b))
	f.Add(archive(f, map[string][]byte{"x.o": minimalELF(two, 0x6fff4c0b), "raw": two}, "x.o", "raw"))
	f.Add(coffObject(0x8664, 0, false, []coffSection{{".llvm.offloading", two}, {".text", []byte{0xc3}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		found, err := Scan(bytes.NewReader(b), int64(len(b)), "in", offloadbin.WithMaxInflatedSize(1<<20))
		if err != nil {
			return
		}
		for _, fd := range found {
			if _, err := io.Copy(io.Discard, fd.Open()); err != nil {
				t.Fatalf("accepted image unreadable: %v", err)
			}
			GeneratedName("in", &fd.Image, 0)
		}
		PlanExtraction("in", found, []string{"kind=hip", "arch=a,file=x"}, false)
	})
}
