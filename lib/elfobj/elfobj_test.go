package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Unit tests on the recorded fixtures in testdata/ (see its README); they
// need no compiler.

func readSeed(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func seedNames(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob("testdata/*.o")
	if err != nil || len(m) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

func openBytes(t testing.TB, b []byte) *File {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func content(t testing.TB, f *File, s Section) string {
	t.Helper()
	b, err := io.ReadAll(f.SectionReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIsELF(t *testing.T) {
	for in, want := range map[string]bool{"\x7fELF": true, "\x7fELF\x02": true, "\x7fEL": false, "!<arch>\n": false, "": false} {
		if got := IsELF([]byte(in)); got != want {
			t.Errorf("IsELF(%q) = %v", in, got)
		}
	}
}

func TestOpenFixtures(t *testing.T) {
	tests := []struct {
		file    string
		class   elf.Class
		order   binary.ByteOrder
		machine elf.Machine
		has     []string
	}{
		{"clang22-x86_64-tiny.o", elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, []string{".text.f", ".strtab", ".symtab", ".rela.text.f"}},
		{"gcc-m32-tiny.o", elf.ELFCLASS32, binary.LittleEndian, elf.EM_386, []string{".text", ".shstrtab", ".rel.text"}},
		{"clang22-ppc64be-tiny.o", elf.ELFCLASS64, binary.BigEndian, elf.EM_PPC64, []string{".text", ".eh_frame", ".rela.eh_frame"}},
		{"clangxx22-x86_64-comdat.o", elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, []string{".group"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			f := openBytes(t, readSeed(t, tc.file))
			if f.Class != tc.class || f.ByteOrder != tc.order || f.Machine != tc.machine || f.Type != elf.ET_REL {
				t.Fatalf("got %v %v %v %v", f.Class, f.ByteOrder, f.Machine, f.Type)
			}
			for _, name := range tc.has {
				if _, ok := f.SectionByName(name); !ok {
					t.Errorf("no section %q", name)
				}
			}
		})
	}
}

// TestBundlerFixture reads the sections clang-offload-bundler-22 wrote for
// the inputs recorded in testdata/README.md.
func TestBundlerFixture(t *testing.T) {
	f := openBytes(t, readSeed(t, "bundler22-x86_64-tiny-fat.o"))
	got := map[string]string{}
	for _, s := range f.Sections {
		if isBundle(s) {
			if s.Type != uint32(elf.SHT_PROGBITS) || s.Flags != SHF_EXCLUDE || s.Align != 1 {
				t.Errorf("%s: type %#x flags %#x align %d", s.Name, s.Type, s.Flags, s.Align)
			}
			got[s.Name] = content(t, f, s)
		}
	}
	want := map[string]string{
		bundlePrefix + "host-x86_64-unknown-linux-gnu-": "\x00",
		bundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906":  "x",
	}
	if len(got) != len(want) || got[bundlePrefix+"host-x86_64-unknown-linux-gnu-"] != "\x00" ||
		got[bundlePrefix+"hip-amdgcn-amd-amdhsa--gfx906"] != "x" {
		t.Fatalf("got %q, want %q", got, want)
	}

	// Stripping them gives back the host object's sections and contents.
	var out bytes.Buffer
	b := readSeed(t, "bundler22-x86_64-tiny-fat.o")
	if err := RemoveSections(&out, bytes.NewReader(b), int64(len(b)), isBundle); err != nil {
		t.Fatal(err)
	}
	compareFiles(t, openBytes(t, out.Bytes()), openBytes(t, readSeed(t, "clang22-x86_64-tiny.o")), nil)
}

// compareFiles checks that got has want's sections, in order, with equal
// headers (offsets aside; string tables may grow) and equal contents;
// extra lists sections only got has, at its end.
func compareFiles(t *testing.T, got, want *File, extra []NewSection) {
	t.Helper()
	if len(got.Sections) != len(want.Sections)+len(extra) {
		t.Fatalf("%d sections, want %d", len(got.Sections), len(want.Sections)+len(extra))
	}
	for i, w := range want.Sections {
		g := got.Sections[i]
		gs, ws := g, w
		gs.Offset, ws.Offset, gs.nameOff, ws.nameOff = 0, 0, 0, 0
		if w.Type == uint32(elf.SHT_STRTAB) {
			gs.Size, ws.Size = 0, 0
		}
		if i == 0 {
			gs.Size, ws.Size, gs.Link, ws.Link = 0, 0, 0, 0
		}
		if gs != ws {
			t.Errorf("section %d: got %+v, want %+v", i, g, w)
		}
		switch w.Type {
		case uint32(elf.SHT_STRTAB):
		case uint32(elf.SHT_SYMTAB):
			// The string table may be laid out again (as llvm-objcopy
			// does): compare the symbols by name.
			if g, w := symbolList(t, got), symbolList(t, want); g != w {
				t.Errorf("section %d (%s): symbols differ\ngot  %s\nwant %s", i, w, g, w)
			}
		default:
			if content(t, got, g) != content(t, want, w) {
				t.Errorf("section %d (%s): contents differ", i, w.Name)
			}
		}
	}
	for i, e := range extra {
		g := got.Sections[len(want.Sections)+i]
		if g.Name != e.Name || g.Type != e.Type || g.Flags != e.Flags || g.Align != e.Align || g.Size != uint64(e.Size) {
			t.Errorf("new section %d: got %+v, want %+v", i, g, e)
		}
	}
}

// symbolList renders the symbols of f (names resolved) for comparison.
func symbolList(t *testing.T, f *File) string {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(f.r, 0, f.size))
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%+v", syms)
}

func TestAddRemoveFixtures(t *testing.T) {
	payloads := []string{"\x00", "some payload bytes", ""}
	for _, name := range seedNames(t) {
		t.Run(name, func(t *testing.T) {
			b := readSeed(t, name)
			orig := openBytes(t, b)
			secs := []NewSection{
				{Name: bundlePrefix + "host-x86_64-unknown-linux-gnu-", Type: uint32(elf.SHT_PROGBITS), Flags: SHF_EXCLUDE, Align: 1},
				{Name: ".llvm.offloading", Type: SHT_LLVM_OFFLOADING, Flags: SHF_EXCLUDE, Align: 8},
				{Name: ".text", Type: uint32(elf.SHT_PROGBITS), Align: 4}, // a name already in the table
			}
			for i := range secs {
				secs[i].Size, secs[i].Data = int64(len(payloads[i])), strings.NewReader(payloads[i])
			}
			var added bytes.Buffer
			if err := AddSections(&added, bytes.NewReader(b), int64(len(b)), secs); err != nil {
				t.Fatal(err)
			}
			af := openBytes(t, added.Bytes())
			compareFiles(t, af, orig, secs)
			for i, s := range af.Sections[len(orig.Sections):] {
				if got := content(t, af, s); got != payloads[i] {
					t.Errorf("new section %d: %q, want %q", i, got, payloads[i])
				}
				if s.Align > 1 && s.Offset%s.Align != 0 {
					t.Errorf("new section %d at offset %#x, not aligned to %d", i, s.Offset, s.Align)
				}
			}
			n := len(orig.Sections)
			var stripped bytes.Buffer
			drop := func(s Section) bool { return s.Index >= n }
			if err := RemoveSections(&stripped, bytes.NewReader(added.Bytes()), int64(added.Len()), drop); err != nil {
				t.Fatal(err)
			}
			compareFiles(t, openBytes(t, stripped.Bytes()), orig, nil)
		})
	}
}

func TestAddSectionsErrors(t *testing.T) {
	b := readSeed(t, "clang22-x86_64-tiny.o")
	ok := NewSection{Name: "x", Type: uint32(elf.SHT_PROGBITS), Size: 2, Data: strings.NewReader("ab")}
	tests := []struct {
		name string
		mod  func(*NewSection)
	}{
		{"empty name", func(s *NewSection) { s.Name = "" }},
		{"nul in name", func(s *NewSection) { s.Name = "a\x00b" }},
		{"negative size", func(s *NewSection) { s.Size = -1 }},
		{"short data", func(s *NewSection) { s.Size = 3 }},
		{"long data", func(s *NewSection) { s.Size = 1 }},
		{"nobits", func(s *NewSection) { s.Type = uint32(elf.SHT_NOBITS) }},
		{"bad align", func(s *NewSection) { s.Align = 3 }},
		{"nil data", func(s *NewSection) { s.Data = nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok
			s.Data = strings.NewReader("ab")
			tc.mod(&s)
			if err := AddSections(io.Discard, bytes.NewReader(b), int64(len(b)), []NewSection{s}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	b32 := readSeed(t, "gcc-m32-tiny.o")
	big := NewSection{Name: "big", Type: uint32(elf.SHT_PROGBITS), Flags: 1 << 40, Data: strings.NewReader("")}
	if err := AddSections(io.Discard, bytes.NewReader(b32), int64(len(b32)), []NewSection{big}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("64-bit flags in ELFCLASS32: %v, want ErrUnsupported", err)
	}
}

func TestRemoveSectionsRefusals(t *testing.T) {
	b := readSeed(t, "clang22-x86_64-tiny.o")
	tests := []struct {
		name, drop, want string
	}{
		{"section symbol", ".text.f", `section symbol (index 2 in .symtab) is defined in removed section ".text.f"`},
		{"defined symbol", ".data", `symbol "g"`},
		{"name table", ".strtab", "section name table"},
		{"symbol table", ".symtab", "links to removed section"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := RemoveSections(io.Discard, bytes.NewReader(b), int64(len(b)), func(s Section) bool { return s.Name == tc.drop })
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrUnsupported mentioning %q", err, tc.want)
			}
		})
	}
}

// TestRemoveGroupMember drops the relocations of a COMDAT member: the group
// keeps its other members, renumbered.
func TestRemoveGroupMember(t *testing.T) {
	b := readSeed(t, "clangxx22-x86_64-comdat.o")
	orig := openBytes(t, b)
	var out bytes.Buffer
	drop := func(s Section) bool { return s.Type == uint32(elf.SHT_RELA) && strings.Contains(s.Name, "_Z5twice") }
	if err := RemoveSections(&out, bytes.NewReader(b), int64(len(b)), drop); err != nil {
		t.Fatal(err)
	}
	f := openBytes(t, out.Bytes())
	groups := f.SectionsByType(uint32(elf.SHT_GROUP))
	if len(groups) != 1 {
		t.Fatalf("%d groups", len(groups))
	}
	g := []byte(content(t, f, groups[0]))
	var names []string
	for i := 4; i+4 <= len(g); i += 4 {
		names = append(names, f.Sections[binary.LittleEndian.Uint32(g[i:])].Name)
	}
	var want []string
	og := orig.SectionsByType(uint32(elf.SHT_GROUP))[0]
	ob := []byte(content(t, orig, og))
	for i := 4; i+4 <= len(ob); i += 4 {
		if s := orig.Sections[binary.LittleEndian.Uint32(ob[i:])]; !drop(s) {
			want = append(want, s.Name)
		}
	}
	if strings.Join(names, ",") != strings.Join(want, ",") || len(want) == 0 {
		t.Fatalf("group members %q, want %q", names, want)
	}
}

// mutate returns a copy of the x86-64 fixture with a header change.
func mutate(t *testing.T, fn func(b []byte, bo binary.ByteOrder, shoff int)) []byte {
	b := append([]byte(nil), readSeed(t, "clang22-x86_64-tiny.o")...)
	fn(b, binary.LittleEndian, int(binary.LittleEndian.Uint64(b[40:])))
	return b
}

func TestOpenErrors(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"not elf", []byte("!<arch>\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), ErrNotELF},
		{"empty", nil, ErrNotELF},
		{"ident only", []byte("\x7fELF\x02\x01\x01"), ErrFormat},
		{"bad class", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { b[4] = 3 }), ErrFormat},
		{"bad data", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { b[5] = 0 }), ErrFormat},
		{"bad version", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { b[6] = 2 }), ErrFormat},
		{"shentsize", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { le.PutUint16(b[58:], 63) }), ErrFormat},
		{"too many sections", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { le.PutUint16(b[60:], 0xfeff) }), ErrFormat},
		{"huge extended count", mutate(t, func(b []byte, _ binary.ByteOrder, sh int) {
			le.PutUint16(b[60:], 0)
			le.PutUint64(b[sh+32:], 1<<40)
		}), ErrFormat},
		{"shoff past end", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { le.PutUint64(b[40:], uint64(len(b))-10) }), ErrFormat},
		{"shstrndx out of range", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) { le.PutUint16(b[62:], le.Uint16(b[60:])) }), ErrFormat},
		{"section past end", mutate(t, func(b []byte, _ binary.ByteOrder, sh int) { le.PutUint64(b[sh+64+24:], 1<<62) }), ErrFormat},
		{"section size overflow", mutate(t, func(b []byte, _ binary.ByteOrder, sh int) { le.PutUint64(b[sh+64+32:], ^uint64(0)) }), ErrFormat},
		{"name past table", mutate(t, func(b []byte, _ binary.ByteOrder, sh int) { le.PutUint32(b[sh+64:], 0x7fffffff) }), ErrFormat},
		{"program headers past end", mutate(t, func(b []byte, _ binary.ByteOrder, _ int) {
			le.PutUint16(b[54:], 56)
			le.PutUint16(b[56:], 0xfffe)
		}), ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(bytes.NewReader(tc.in), int64(len(tc.in)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestTruncation cuts each fixture at every offset: Open, AddSections and
// RemoveSections must fail cleanly (the section table is at the end).
func TestTruncation(t *testing.T) {
	for _, name := range seedNames(t) {
		b := readSeed(t, name)
		for n := 0; n < len(b); n++ {
			in := b[:n]
			if _, err := Open(bytes.NewReader(in), int64(n)); err == nil {
				t.Fatalf("%s cut at %d: Open succeeded", name, n)
			}
			if err := AddSections(io.Discard, bytes.NewReader(in), int64(n), nil); err == nil {
				t.Fatalf("%s cut at %d: AddSections succeeded", name, n)
			}
		}
		// A size larger than the data behind the ReaderAt is an error too.
		if err := RemoveSections(io.Discard, bytes.NewReader(b[:len(b)/2]), int64(len(b)), isBundle); err == nil {
			t.Fatalf("%s: lying size accepted", name)
		}
	}
}

// TestArchiveSymbolsFixtures: the expected lists are llvm-ar-22's archive
// maps for the fixtures (llvm-nm-22 --print-armap), in table order.
func TestArchiveSymbolsFixtures(t *testing.T) {
	tests := map[string][]string{
		"clang22-x86_64-tiny.o":       {"f", "g"},
		"bundler22-x86_64-tiny-fat.o": {"f", "g"},
		"gcc-m32-tiny.o":              {"f", "__x86.get_pc_thunk.dx", "g"},
		"clang22-ppc64be-tiny.o":      {"f", "g"},
		"clangxx22-x86_64-comdat.o":   {"_Z1fi", "_Z5twiceIiET_S0_"},
	}
	for name, want := range tests {
		f := openBytes(t, readSeed(t, name))
		got, err := f.ArchiveSymbols()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
