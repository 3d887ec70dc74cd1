package relobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// sample builds an x86-64 object exercising every feature: code with a
// call to an undefined function, data pointing into another section, a
// streamed section, NOBITS and an empty section.
func sample(t *testing.T) *File {
	t.Helper()
	f, err := New(elf.EM_X86_64)
	if err != nil {
		t.Fatal(err)
	}
	text := f.AddSection(".text", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_EXECINSTR, 16)
	// answer: movl $42, %eax; retq.  twice: callq ext@PLT; retq
	text.Write([]byte{0xb8, 42, 0, 0, 0, 0xc3, 0xe8, 0, 0, 0, 0, 0xc3})
	ro := f.AddSection(".rodata", elf.SHT_PROGBITS, elf.SHF_ALLOC, 1)
	ro.Write([]byte("xxhello\x00"))
	blob := f.AddSection(".blob", elf.SHT_PROGBITS, elf.SHF_ALLOC, 8)
	blob.AppendReader(strings.NewReader("streamed"), 8)
	blob.Zero(3)
	data := f.AddSection(".data", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8)
	data.Zero(8)
	bss := f.AddSection(".bss", elf.SHT_NOBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8)
	bss.Zero(16)
	f.AddSection(".note.GNU-stack", elf.SHT_PROGBITS, 0, 1)

	hello := f.AddSymbol(Symbol{Name: "hello", Bind: elf.STB_LOCAL, Type: elf.STT_OBJECT, Section: ro, Value: 2, Size: 6})
	f.AddSymbol(Symbol{Name: "answer", Bind: elf.STB_GLOBAL, Type: elf.STT_FUNC, Section: text, Size: 6})
	ext := f.AddSymbol(Symbol{Name: "ext", Bind: elf.STB_GLOBAL})
	f.AddSymbol(Symbol{Name: "twice", Bind: elf.STB_WEAK, Type: elf.STT_FUNC, Vis: elf.STV_HIDDEN, Section: text, Value: 6, Size: 6})
	f.AddSymbol(Symbol{Name: "msg_ptr", Bind: elf.STB_GLOBAL, Type: elf.STT_OBJECT, Section: data, Size: 8})
	f.AddSymbol(Symbol{Name: "buf", Bind: elf.STB_LOCAL, Type: elf.STT_OBJECT, Section: bss, Size: 16})
	text.AddReloc(7, ext, uint32(elf.R_X86_64_PLT32), -4)
	data.AddReloc(0, hello, uint32(elf.R_X86_64_64), 0)
	return f
}

func write(t *testing.T, f *File) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := f.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d", n, b.Len())
	}
	return b.Bytes()
}

func TestReadBackWithDebugELF(t *testing.T) {
	out := write(t, sample(t))
	ef, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if ef.Type != elf.ET_REL || ef.Machine != elf.EM_X86_64 || ef.Class != elf.ELFCLASS64 {
		t.Fatalf("header: %v %v %v", ef.Type, ef.Machine, ef.Class)
	}
	want := []struct {
		name  string
		typ   elf.SectionType
		flags elf.SectionFlag
		align uint64
		size  uint64
		data  string
	}{
		{".text", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, 16, 12, ""},
		{".rela.text", elf.SHT_RELA, elf.SHF_INFO_LINK, 8, 24, ""},
		{".rodata", elf.SHT_PROGBITS, elf.SHF_ALLOC, 1, 8, "xxhello\x00"},
		{".blob", elf.SHT_PROGBITS, elf.SHF_ALLOC, 8, 11, "streamed\x00\x00\x00"},
		{".data", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_WRITE, 8, 8, "\x00\x00\x00\x00\x00\x00\x00\x00"},
		{".rela.data", elf.SHT_RELA, elf.SHF_INFO_LINK, 8, 24, ""},
		{".bss", elf.SHT_NOBITS, elf.SHF_ALLOC | elf.SHF_WRITE, 8, 16, ""},
		{".note.GNU-stack", elf.SHT_PROGBITS, 0, 1, 0, ""},
		{".symtab", elf.SHT_SYMTAB, 0, 8, 0, ""},
		{".strtab", elf.SHT_STRTAB, 0, 1, 0, ""},
		{".shstrtab", elf.SHT_STRTAB, 0, 1, 0, ""},
	}
	if len(ef.Sections) != len(want)+1 {
		t.Fatalf("%d sections, want %d", len(ef.Sections), len(want)+1)
	}
	for i, w := range want {
		s := ef.Sections[i+1]
		if s.Name != w.name || s.Type != w.typ || s.Flags != w.flags || s.Addralign != w.align {
			t.Errorf("section %d: %s %v %v %d, want %s %v %v %d", i+1, s.Name, s.Type, s.Flags, s.Addralign, w.name, w.typ, w.flags, w.align)
		}
		if w.size != 0 && s.Size != w.size {
			t.Errorf("%s: size %d, want %d", s.Name, s.Size, w.size)
		}
		if w.data != "" {
			if d, _ := s.Data(); string(d) != w.data {
				t.Errorf("%s: data %q, want %q", s.Name, d, w.data)
			}
		}
		if s.Type != elf.SHT_NOBITS && s.Offset%max(s.Addralign, 1) != 0 {
			t.Errorf("%s: offset %#x not aligned to %d", s.Name, s.Offset, s.Addralign)
		}
	}
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		sec := "UND"
		if s.Section != elf.SHN_UNDEF {
			sec = ef.Sections[s.Section].Name
		}
		got = append(got, strings.Join([]string{s.Name, elf.ST_BIND(s.Info).String(), elf.ST_TYPE(s.Info).String(),
			elf.ST_VISIBILITY(s.Other).String(), sec}, " "))
	}
	wantSyms := []string{
		"hello STB_LOCAL STT_OBJECT STV_DEFAULT .rodata",
		"buf STB_LOCAL STT_OBJECT STV_DEFAULT .bss",
		"answer STB_GLOBAL STT_FUNC STV_DEFAULT .text",
		"ext STB_GLOBAL STT_NOTYPE STV_DEFAULT UND",
		"twice STB_WEAK STT_FUNC STV_HIDDEN .text",
		"msg_ptr STB_GLOBAL STT_OBJECT STV_DEFAULT .data",
	}
	if strings.Join(got, "\n") != strings.Join(wantSyms, "\n") {
		t.Errorf("symbols:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSyms, "\n"))
	}
	// The text relocation: PLT32 against ext at 7, addend -4.
	rela, _ := ef.Section(".rela.text").Data()
	off, info, add := binary.LittleEndian.Uint64(rela), binary.LittleEndian.Uint64(rela[8:]), int64(binary.LittleEndian.Uint64(rela[16:]))
	if off != 7 || elf.R_X86_64(info&0xffffffff) != elf.R_X86_64_PLT32 || syms[info>>32-1].Name != "ext" || add != -4 {
		t.Errorf("rela.text: off %d info %#x addend %d", off, info, add)
	}
	if link := ef.Section(".rela.text").Link; ef.Sections[link].Name != ".symtab" {
		t.Errorf("rela.text links to %s", ef.Sections[link].Name)
	}
	if info := ef.Section(".rela.text").Info; ef.Sections[info].Name != ".text" {
		t.Errorf("rela.text applies to %s", ef.Sections[info].Name)
	}
	if !bytes.Equal(out, write(t, sample(t))) {
		t.Error("output is not deterministic")
	}
}

// TestLinksAndRuns links the sample with a C main through gcc and runs it:
// the linker resolves the call and the data pointer.
func TestLinksAndRuns(t *testing.T) {
	llvmtest.Need(t, "gcc")
	dir := t.TempDir()
	f := sample(t)
	os.WriteFile(filepath.Join(dir, "s.o"), write(t, f), 0o644)
	os.WriteFile(filepath.Join(dir, "m.c"), []byte(`#include <stdio.h>
extern int answer(void); extern int twice(void); extern const char *msg_ptr;
int ext(void) { return 7; }
int main(void) { printf("%d %d %s\n", answer(), twice(), msg_ptr); return 0; }
`), 0o644)
	llvmtest.Run(t, dir, "gcc", "-o", "m", "m.c", "s.o")
	if got := llvmtest.Run(t, dir, "./m"); got != "42 7 hello\n" {
		t.Fatalf("program printed %q, want %q", got, "42 7 hello\n")
	}
}

// TestAArch64LinksWithLLD links an AArch64 object into a shared object and
// checks that the data pointer became a relative relocation to hello.
func TestAArch64LinksWithLLD(t *testing.T) {
	llvmtest.Need(t, "ld.lld-22")
	f, _ := New(elf.EM_AARCH64)
	text := f.AddSection(".text", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_EXECINSTR, 4)
	text.Write([]byte{0, 0, 0, 0x94, 0xc0, 0x03, 0x5f, 0xd6}) // bl ext; ret
	ro := f.AddSection(".rodata", elf.SHT_PROGBITS, elf.SHF_ALLOC, 1)
	ro.Write([]byte("hello\x00"))
	data := f.AddSection(".data", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8)
	data.Zero(8)
	hello := f.AddSymbol(Symbol{Name: "hello", Bind: elf.STB_LOCAL, Type: elf.STT_OBJECT, Section: ro, Size: 6})
	ext := f.AddSymbol(Symbol{Name: "ext", Bind: elf.STB_GLOBAL})
	f.AddSymbol(Symbol{Name: "fn", Bind: elf.STB_GLOBAL, Type: elf.STT_FUNC, Section: text, Size: 8})
	text.AddReloc(0, ext, uint32(elf.R_AARCH64_CALL26), 0)
	data.AddReloc(0, hello, uint32(elf.R_AARCH64_ABS64), 1)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.o"), write(t, f), 0o644)
	llvmtest.Run(t, dir, "ld.lld-22", "-shared", "-o", "a.so", "a.o")
	so, err := elf.Open(filepath.Join(dir, "a.so"))
	if err != nil {
		t.Fatal(err)
	}
	defer so.Close()
	rodata, dataSec := so.Section(".rodata"), so.Section(".data")
	rela, _ := so.Section(".rela.dyn").Data()
	found := false
	for len(rela) >= 24 {
		off, info, add := binary.LittleEndian.Uint64(rela), binary.LittleEndian.Uint64(rela[8:]), binary.LittleEndian.Uint64(rela[16:])
		if off == dataSec.Addr && elf.R_AARCH64(info&0xffffffff) == elf.R_AARCH64_RELATIVE && add == rodata.Addr+1 {
			found = true
		}
		rela = rela[24:]
	}
	if !found {
		t.Fatalf("no R_AARCH64_RELATIVE for .data pointing at .rodata+1 (%#x)", rodata.Addr+1)
	}
}

func TestInvalidObjects(t *testing.T) {
	if _, err := New(elf.EM_386); !errors.Is(err, ErrInvalid) {
		t.Errorf("EM_386: %v", err)
	}
	other, _ := New(elf.EM_X86_64)
	otherSym := other.AddSymbol(Symbol{Name: "x", Bind: elf.STB_GLOBAL})
	cases := map[string]func(f *File){
		"duplicate section": func(f *File) {
			f.AddSection(".a", elf.SHT_PROGBITS, 0, 1)
			f.AddSection(".a", elf.SHT_PROGBITS, 0, 1)
		},
		"reserved name": func(f *File) { f.AddSection(".symtab", elf.SHT_PROGBITS, 0, 1) },
		"reloc past end": func(f *File) {
			s := f.AddSection(".a", elf.SHT_PROGBITS, 0, 1)
			s.Write(make([]byte, 6))
			s.AddReloc(0, f.SectionSymbol(s), uint32(elf.R_X86_64_64), 0)
		},
		"foreign symbol": func(f *File) {
			s := f.AddSection(".a", elf.SHT_PROGBITS, 0, 1)
			s.Write(make([]byte, 8))
			s.AddReloc(0, otherSym, uint32(elf.R_X86_64_64), 0)
		},
		"NUL in name": func(f *File) { f.AddSymbol(Symbol{Name: "a\x00b"}) },
		"bad align":   func(f *File) { f.AddSection(".a", elf.SHT_PROGBITS, 0, 3) },
		"short reader": func(f *File) {
			s := f.AddSection(".a", elf.SHT_PROGBITS, 0, 1)
			s.AppendReader(strings.NewReader("abc"), 10)
		},
	}
	for name, build := range cases {
		f, _ := New(elf.EM_X86_64)
		build(f)
		var b bytes.Buffer
		_, err := f.WriteTo(&b)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if name != "short reader" && b.Len() != 0 {
			t.Errorf("%s: %d bytes written before the error", name, b.Len())
		}
	}
	f, _ := New(elf.EM_X86_64)
	bss := f.AddSection(".bss", elf.SHT_NOBITS, elf.SHF_ALLOC, 8)
	if _, err := bss.Write([]byte{1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("write to NOBITS: %v", err)
	}
}
