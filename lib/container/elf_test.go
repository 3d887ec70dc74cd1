package container

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// tinyELF hand-assembles an ELF64 relocatable object of one .text section
// (as lib/embed's tests do).
func tinyELF() []byte {
	text, names := []byte{0xc3}, []byte("\x00.text\x00.shstrtab\x00")
	var b bytes.Buffer
	le := binary.LittleEndian
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	textOff := uint64(64)
	namesOff := textOff + uint64(len(text))
	shoff := (namesOff + uint64(len(names)) + 7) &^ 7
	binary.Write(&b, le, elf.Header64{Ident: ident, Type: uint16(elf.ET_REL), Machine: uint16(elf.EM_X86_64),
		Version: 1, Shoff: shoff, Ehsize: 64, Shentsize: 64, Shnum: 3, Shstrndx: 2})
	b.Write(text)
	b.Write(names)
	b.Write(make([]byte, int(shoff)-b.Len()))
	binary.Write(&b, le, []elf.Section64{{},
		{Name: 1, Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Off: textOff, Size: uint64(len(text)), Addralign: 16},
		{Name: 7, Type: uint32(elf.SHT_STRTAB), Off: namesOff, Size: uint64(len(names)), Addralign: 1}})
	return b.Bytes()
}

// TestELFPieces: bundle sections (the one-zero-byte host marker told
// apart) and the offloading sections (NVIDIA's fat binaries, whole-program
// and relocatable, among them) are visited in section order, with their
// kinds; other sections are not.
func TestELFPieces(t *testing.T) {
	host := tinyELF()
	add := []elfobj.NewSection{
		{Name: "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-", Data: strings.NewReader("\x00"), Size: 1},
		{Name: "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906", Data: strings.NewReader("code"), Size: 4},
		{Name: ".other", Data: strings.NewReader("x"), Size: 1},
		{Name: ".hip_fatbin", Data: strings.NewReader("fat"), Size: 3},
		{Name: ".llvm.offloading", Data: strings.NewReader("pkg"), Size: 3},
		{Name: ".nv_fatbin", Data: strings.NewReader("nv"), Size: 2},
		{Name: "__nv_relfatbin", Data: strings.NewReader("rdc"), Size: 3},
		{Name: "__nv_module_id", Data: strings.NewReader("id"), Size: 2},
	}
	for i := range add {
		add[i].Type, add[i].Align = uint32(elf.SHT_PROGBITS), 1
	}
	var b bytes.Buffer
	if err := elfobj.AddSections(&b, bytes.NewReader(host), int64(len(host)), add); err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b.Bytes())
	var got []string
	err := ELF(r, int64(b.Len()), func(p Piece) error {
		data := make([]byte, p.Size)
		p.Data.ReadAt(data, 0)
		got = append(got, []string{"member", "entry", "section", "entry-section", "host-marker"}[p.Kind]+":"+p.EntryID()+"="+string(data))
		return nil
	})
	want := "host-marker:host-x86_64-unknown-linux-gnu-=\x00 entry-section:hip-amdgcn-amd-amdhsa--gfx906=code " +
		"section:.hip_fatbin=fat section:.llvm.offloading=pkg section:.nv_fatbin=nv section:__nv_relfatbin=rdc"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}
