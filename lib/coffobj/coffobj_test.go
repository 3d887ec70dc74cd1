package coffobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// section and object build COFF objects from the specification's layout.
type section struct {
	name string
	data []byte
}

func object(machine uint16, opt int, big bool, secs []section) []byte {
	var hs []hostile.COFFSection
	for _, s := range secs {
		hs = append(hs, hostile.COFFSection{Name: s.name, Data: s.data})
	}
	b, _ := hostile.COFFObject(machine, opt, big, hs)
	return b
}

func open(b []byte) (*File, error) { return Open(bytes.NewReader(b), int64(len(b)), "x.obj") }

// contents reads every section's name and contents.
func contents(f *File) (map[string]string, error) {
	secs, err := f.Sections()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range secs {
		r, err := f.SectionReader(s)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(r)
		out[s.Name] = string(b)
	}
	return out, nil
}

func TestOpen(t *testing.T) {
	text, long := section{".text", []byte{0xc3}}, section{".llvm.offloading", []byte("package")}
	for _, tc := range []struct {
		name    string
		in      []byte
		machine uint16
		big     bool
		want    map[string]string
	}{
		{"amd64", object(0x8664, 0, false, []section{text, long}), 0x8664, false, map[string]string{".text": "\xc3", ".llvm.offloading": "package"}},
		{"optional header", object(0x14c, 24, false, []section{long, text}), 0x14c, false, map[string]string{".text": "\xc3", ".llvm.offloading": "package"}},
		{"base64 name", object(0xaa64, 0, false, []section{{".llvm.offloading", nil}, {"//AAAAAE", []byte("b64")}}), 0xaa64, false, map[string]string{".llvm.offloading": "b64"}},
		{"decimal name", object(0xa641, 0, false, []section{{".llvm.offloading", nil}, {"/4", []byte("dec")}}), 0xa641, false, map[string]string{".llvm.offloading": "dec"}},
		{"eight bytes inline", object(0, 0, false, []section{{".debug$S", []byte("s")}}), 0, false, map[string]string{".debug$S": "s"}},
		{"bigobj", object(0x8664, 0, true, []section{text, long}), 0x8664, true, map[string]string{".text": "\xc3", ".llvm.offloading": "package"}},
		{"import library", append([]byte{0x64, 0x86, 0xff, 0xff}, make([]byte, 60)...), 0x8664, false, map[string]string{}},
		{"old bigobj version", func() []byte { b := object(0x8664, 0, true, []section{text}); b[4] = 1; return b }(), 0, false, map[string]string{}},
		{"empty object", make([]byte, 20), 0, false, map[string]string{}},
		// As llvm-objdump-22 reads it: a bigobj header cut short is an
		// import library's, of no sections.
		{"bigobj header cut", object(0x8664, 0, true, []section{text})[:40], 0, false, map[string]string{}},
	} {
		f, err := open(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got, err := contents(f)
		if err != nil || f.Machine != tc.machine || f.BigObj != tc.big || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: machine %#x, bigobj %v, sections %q, %v; want %#x, %v, %q", tc.name, f.Machine, f.BigObj, got, err, tc.machine, tc.big, tc.want)
		}
	}
}

// A section without contents in the file (offset 0) reads as empty, its
// size notwithstanding, as LLVM reads it.
func TestSectionWithoutContents(t *testing.T) {
	b := object(0x8664, 0, false, []section{{".bss", nil}})
	binary.LittleEndian.PutUint32(b[HeaderSize+16:], 1<<30)
	binary.LittleEndian.PutUint32(b[HeaderSize+20:], 0)
	f, err := open(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Section(0)
	if err != nil || s.Size != 1<<30 || s.Offset != 0 || s.Characteristics != 0x42000040 {
		t.Fatalf("%+v, %v", s, err)
	}
	if r, err := f.SectionReader(s); err != nil || r.Size() != 0 {
		t.Fatalf("contents of a section without any: %v", err)
	}
}

// Structures past the end of the file, and names LLVM cannot resolve,
// are typed errors that name the file, at the offset of the structure.
// Names and contents are only checked when asked for.
func TestErrors(t *testing.T) {
	good := object(0x8664, 0, false, []section{{".text", []byte{0xc3}}, {".llvm.offloading", []byte("package")}})
	entry1 := int64(HeaderSize + SectionSize)
	patch := func(off int, v uint32) []byte {
		c := bytes.Clone(good)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	named := func(n string) []byte {
		c := bytes.Clone(good)
		copy(c[entry1:entry1+8], n+strings.Repeat("\x00", 8-len(n)))
		return c
	}
	hugeBig := object(0x8664, 0, true, nil)
	binary.LittleEndian.PutUint32(hugeBig[44:], 0xffffffff) // 4G sections: refused, not allocated
	for _, tc := range []struct {
		name  string
		in    []byte
		open  bool // the error comes from Open, not from the section
		trunc bool
		off   int64
		msg   string
	}{
		{"header", good[:12], true, true, 0, "header past end of file"},
		{"section table", good[:HeaderSize+SectionSize+10], true, true, HeaderSize, "section table past end of file"},
		{"huge bigobj section table", hugeBig, true, true, BigObjHeaderSize, "section table past end of file"},
		{"optional header past the table", patch(16, 0xfff0), true, true, HeaderSize + 0xfff0, "section table past end of file"},
		{"section data", patch(int(entry1)+16, 1<<20), false, true, entry1, "section .llvm.offloading past end of file"},
		{"section offset", patch(int(entry1)+20, 1<<20), false, true, entry1, "section .llvm.offloading past end of file"},
		{"section one byte past the end", patch(int(entry1)+16, uint32(len(good)-int(binary.LittleEndian.Uint32(good[entry1+20:]))+1)), false, true, entry1, "section .llvm.offloading past end of file"},
		{"name past the string table", named("/999"), false, true, entry1, "section name past end of file"},
		{"no symbol table", patch(8, 0), false, false, entry1, "string table empty"},
		{"symbol table past the end", patch(8, uint32(len(good)+1)), false, false, entry1, "string table empty"},
		{"string table past the end", patch(12, 1000), false, false, entry1, "string table empty"},
		{"unterminated string table", good[:len(good)-1], false, false, entry1, "string table empty"},
		{"name not a number", named("/4x"), false, false, entry1, "invalid section name"},
		{"base64 name not base64", named("//AA*A"), false, false, entry1, "invalid section name"},
	} {
		f, err := open(tc.in)
		if err == nil {
			if tc.open {
				t.Errorf("%s: Open took it", tc.name)
				continue
			}
			var s Section
			if s, err = f.Section(1); err == nil {
				_, err = f.SectionReader(s)
			}
			if _, err0 := f.Section(0); err0 != nil {
				t.Errorf("%s: section 0 is intact, yet %v", tc.name, err0)
			}
		} else if !tc.open {
			t.Errorf("%s: Open refused it: %v", tc.name, err)
			continue
		}
		var fe *FormatError
		switch {
		case !errors.As(err, &fe) || fe.Msg != tc.msg || fe.Off != tc.off || fe.Truncated != tc.trunc:
			t.Errorf("%s: %#v, want %q at %d (truncated %v)", tc.name, err, tc.msg, tc.off, tc.trunc)
		case !errors.Is(err, ErrFormat) || errors.Is(err, ErrTruncated) != tc.trunc:
			t.Errorf("%s: %v matches the wrong sentinels", tc.name, err)
		case err.Error() != "x.obj: COFF object: "+tc.msg:
			t.Errorf("%s: %q does not name the file and the problem", tc.name, err)
		}
	}
}

// The first bytes LLVM 22's identify_magic takes for a COFF object, and
// some it does not.
func TestIsObject(t *testing.T) {
	big := make([]byte, 28)
	big[2], big[3] = 0xff, 0xff
	copy(big[12:], BigObjClassID)
	for _, tc := range []struct {
		in          []byte
		want, typed bool
	}{
		{[]byte{0x64, 0x86, 0, 0}, true, true}, {[]byte{0x64, 0xaa, 0, 0}, true, true}, {[]byte{0x4c, 0x01, 0, 0}, true, true},
		{[]byte{0xc4, 0x01, 0, 0}, true, true}, {[]byte{0x41, 0xa6, 0, 0}, true, true}, {[]byte{0x4e, 0xa6, 0, 0}, true, true},
		{[]byte{0x66, 0x02, 0, 0}, true, true}, {[]byte{0x90, 0x02, 0, 0}, true, true}, {[]byte{0, 0, 0, 0}, true, false}, {big, true, true},
		{[]byte{0x64, 0x86, 0}, false, false}, {[]byte{0x90, 0x01, 0, 0}, false, false}, {[]byte{0x64, 0x87, 0, 0}, false, false},
		{big[:27], false, false}, {append([]byte{0, 0, 0xff, 0xff}, make([]byte, 40)...), false, false},
		{[]byte("\x00asm\x01\x00\x00\x00"), false, false}, {winResMagic, false, false}, {[]byte("MZ\x90\x00"), false, false},
		{[]byte{0x50, 0xed, 0x55, 0xba}, false, false},
	} {
		if got, typed := IsObject(tc.in), IsObjectWithMachine(tc.in); got != tc.want || typed != tc.typed {
			t.Errorf("% x: %v, %v; want %v, %v", tc.in, got, typed, tc.want, tc.typed)
		}
	}
}

// The sections of clang-22's objects for Windows targets, as
// llvm-readobj-22 lists them: names (long ones through the string
// table), sizes, offsets and flags.
func TestMatchesReadobj(t *testing.T) {
	clang, readobj := llvmtest.Tool(t, "clang-22"), llvmtest.Tool(t, "llvm-readobj-22")
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "pkg.bin", []byte("not a package, only bytes"))
	llvmtest.WriteFile(t, dir, "k.c", []byte("int counter = 1;\nint bss;\nint f(void) { return counter; }\n"))
	for _, target := range []string{"x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc", "i686-pc-windows-gnu"} {
		obj := target + ".obj"
		llvmtest.Run(t, dir, clang, "--target="+target, "-g", "-ffunction-sections", "-c", "k.c", "-o", obj, "-Xclang", "-fembed-offload-object=pkg.bin")
		want := readobjSections(t, llvmtest.Run(t, dir, readobj, "--sections", obj))
		b := llvmtest.ReadFile(t, filepath.Join(dir, obj))
		f, err := open(b)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		secs, err := f.Sections()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		var got []string
		long := false
		for _, s := range secs {
			got = append(got, fmt.Sprintf("%s %d %d %#x", s.Name, s.Size, s.Offset, s.Characteristics))
			long = long || len(s.Name) > 8
		}
		if !reflect.DeepEqual(got, want) || !long {
			t.Errorf("%s: sections\n%q\nllvm-readobj-22:\n%q", target, got, want)
		}
	}
}

// readobjSections gives "name size offset flags" per section of
// llvm-readobj --sections output.
func readobjSections(t *testing.T, out string) []string {
	var secs []string
	var name, size, off string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		k, v, _ := strings.Cut(l, ": ")
		if flags, ok := strings.CutPrefix(l, "Characteristics [ ("); ok {
			k, v = "Characteristics", strings.TrimSuffix(flags, ")")
		}
		switch k {
		case "Name":
			name, _, _ = strings.Cut(v, " (")
		case "RawDataSize":
			size = v
		case "PointerToRawData":
			off = v
		case "Characteristics":
			o, err1 := strconv.ParseInt(off, 0, 64)
			c, err2 := strconv.ParseUint(v, 0, 32)
			if err1 != nil || err2 != nil {
				t.Fatalf("cannot read llvm-readobj-22's %q, %q", off, v)
			}
			secs = append(secs, fmt.Sprintf("%s %s %d %#x", name, size, o, c))
		}
	}
	return secs
}

// Sections whose names all run to the end of a 16 MiB string table (the
// review's 16.8 MB object asked 3.3 GB; its 65,534-section variant ~768
// GiB): names are slices of the table, so reading all of them allocates
// about the table once, and finding each name's end scans at most one
// block of it.
func TestLongNamesAreNotCopied(t *testing.T) {
	const tableLen = 16 << 20
	for _, c := range []struct{ sections, stride int }{{200, 0}, {65534, 0}, {65534, 4099}} {
		b := hostile.COFFLongNames(c.sections, tableLen, c.stride)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := open(b)
		if err != nil {
			t.Fatal(err)
		}
		secs, err := f.Sections()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := secs[len(secs)-1].Name; len(got) < tableLen-c.stride*c.sections%tableLen-1 || strings.Trim(got, "A") != "" {
			t.Fatalf("%+v: last name of %d bytes, want a tail of the table", c, len(got))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(len(b)) {
			t.Errorf("%+v: reading the names of a %d-byte object allocated %d bytes", c, len(b), alloc)
		}
	}
}
