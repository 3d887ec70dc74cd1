package embed

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// textBytes is the .text of the hand-made objects.
var textBytes = []byte{0x55, 0x48, 0x89, 0xe5, 0xb8, 0x2a, 0x00, 0x00, 0x00, 0x5d, 0xc3}

// object hand-assembles a minimal ELF file of the given class and type:
// header, .text, .shstrtab and the section header table, laid out with
// the standard library's header structs so that it does not depend on
// the elfobj package under test.
func object(class elf.Class, typ elf.Type) []byte {
	names := []byte("\x00.text\x00.shstrtab\x00")
	var b bytes.Buffer
	le := binary.LittleEndian
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	if class == elf.ELFCLASS64 {
		textOff := uint64(64)
		namesOff := textOff + uint64(len(textBytes))
		shoff := (namesOff + uint64(len(names)) + 7) &^ 7
		binary.Write(&b, le, elf.Header64{Ident: ident, Type: uint16(typ), Machine: uint16(elf.EM_X86_64),
			Version: 1, Shoff: shoff, Ehsize: 64, Shentsize: 64, Shnum: 3, Shstrndx: 2})
		b.Write(textBytes)
		b.Write(names)
		b.Write(make([]byte, int(shoff)-b.Len()))
		binary.Write(&b, le, []elf.Section64{{},
			{Name: 1, Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Off: textOff, Size: uint64(len(textBytes)), Addralign: 16},
			{Name: 7, Type: uint32(elf.SHT_STRTAB), Off: namesOff, Size: uint64(len(names)), Addralign: 1}})
		return b.Bytes()
	}
	textOff := uint32(52)
	namesOff := textOff + uint32(len(textBytes))
	shoff := (namesOff + uint32(len(names)) + 3) &^ 3
	binary.Write(&b, le, elf.Header32{Ident: ident, Type: uint16(typ), Machine: uint16(elf.EM_386),
		Version: 1, Shoff: shoff, Ehsize: 52, Shentsize: 40, Shnum: 3, Shstrndx: 2})
	b.Write(textBytes)
	b.Write(names)
	b.Write(make([]byte, int(shoff)-b.Len()))
	binary.Write(&b, le, []elf.Section32{{},
		{Name: 1, Type: uint32(elf.SHT_PROGBITS), Flags: uint32(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Off: textOff, Size: uint32(len(textBytes)), Addralign: 16},
		{Name: 7, Type: uint32(elf.SHT_STRTAB), Off: namesOff, Size: uint32(len(names)), Addralign: 1}})
	return b.Bytes()
}

// pkg packages one image; its bytes are only input here (the packager's
// own tests check them against LLVM).
func pkg(t testing.TB, image string) []byte {
	t.Helper()
	var b bytes.Buffer
	strs := []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx90a"}}
	if _, err := offloadbin.Write(&b, offloadbin.ImageObject, offloadbin.OffloadHIP, 0, strs, strings.NewReader(image), int64(len(image))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func embed(host, bin []byte) ([]byte, error) {
	var out bytes.Buffer
	err := Embed(&out, bytes.NewReader(host), int64(len(host)), bytes.NewReader(bin), int64(len(bin)))
	return out.Bytes(), err
}

// checkEmbedded reads out with debug/elf: the new section must be what
// clang writes (SHT_LLVM_OFFLOADING, SHF_EXCLUDE, align 8) and hold bin,
// and .text must be intact.
func checkEmbedded(t testing.TB, out, bin []byte) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("debug/elf cannot read the output: %v", err)
	}
	s := f.Section(".llvm.offloading")
	if s == nil {
		t.Fatal("no .llvm.offloading section")
	}
	if s.Type != 0x6fff4c0b || s.Flags != 0x80000000 || s.Addralign != 8 || s.Offset%8 != 0 {
		t.Errorf("section type %#x flags %#x align %d offset %d; want 0x6fff4c0b, 0x80000000, 8, a multiple of 8",
			uint32(s.Type), uint64(s.Flags), s.Addralign, s.Offset)
	}
	if data, _ := s.Data(); !bytes.Equal(data, bin) {
		t.Errorf("section holds %d bytes, not the %d-byte package", len(data), len(bin))
	}
	if data, _ := f.Section(".text").Data(); !bytes.Equal(data, textBytes) {
		t.Errorf(".text changed: % x", data)
	}
}

func TestEmbed(t *testing.T) {
	one := pkg(t, "device code")
	two := append(append([]byte(nil), one...), pkg(t, "more device code, another image")...)
	for _, class := range []elf.Class{elf.ELFCLASS64, elf.ELFCLASS32} {
		for name, bin := range map[string][]byte{"one": one, "two concatenated": two} {
			out, err := embed(object(class, elf.ET_REL), bin)
			if err != nil {
				t.Fatalf("%v %s: %v", class, name, err)
			}
			checkEmbedded(t, out, bin)
		}
	}
}

func TestEmbedRejects(t *testing.T) {
	good := pkg(t, "x")
	rel := object(elf.ELFCLASS64, elf.ET_REL)
	cases := []struct {
		name      string
		host, bin []byte
		want      string
		is        error
	}{
		{"not ELF", []byte("!<arch>\nnot an object"), good, "", elfobj.ErrNotELF},
		{"truncated ELF", rel[:40], good, "", elfobj.ErrFormat},
		{"executable", object(elf.ELFCLASS64, elf.ET_EXEC), good, "needs a relocatable object, not an ELF ET_EXEC", nil},
		{"shared object", object(elf.ELFCLASS32, elf.ET_DYN), good, "needs a relocatable object, not an ELF ET_DYN", nil},
		{"unpadded package", rel, good[:len(good)-4], "not a multiple of 8", nil},
		{"not a package", rel, bytes.Repeat([]byte{1}, 64), "not a valid offload binary", offloadbin.ErrFormat},
		{"truncated package", rel, good[:len(good)-8], "not a valid offload binary", offloadbin.ErrTruncated},
		{"zeros", rel, make([]byte, 64), "holds no image", nil},
		{"empty package", rel, nil, "holds no image", nil},
	}
	for _, c := range cases {
		out, err := embed(c.host, c.bin)
		if err == nil {
			t.Errorf("%s: embedded without error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %q, want one containing %q (is %v)", c.name, err, c.want, c.is)
		}
		if len(out) != 0 {
			t.Errorf("%s: %d bytes written before the error", c.name, len(out))
		}
	}
}

func TestCheck(t *testing.T) {
	good := pkg(t, "abc")
	if err := Check(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	bad[0] ^= 0xff
	if err := Check(bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Fatal("a package with a broken magic passed")
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "host.o")
	if err := os.WriteFile(host, object(elf.ELFCLASS64, elf.ET_REL), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := pkg(t, "image")
	var out bytes.Buffer
	if err := File(&out, host, bytes.NewReader(bin), int64(len(bin))); err != nil {
		t.Fatal(err)
	}
	checkEmbedded(t, out.Bytes(), bin)

	exe := filepath.Join(dir, "a.out")
	os.WriteFile(exe, object(elf.ELFCLASS64, elf.ET_EXEC), 0o644)
	if err := File(&out, exe, bytes.NewReader(bin), int64(len(bin))); err == nil || !strings.HasPrefix(err.Error(), exe+": ") {
		t.Errorf("error %v does not name %s", err, exe)
	}
	if err := File(&out, filepath.Join(dir, "missing.o"), bytes.NewReader(bin), int64(len(bin))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing host: %v", err)
	}
}

// FuzzEmbed feeds hostile objects and packages: no panic, and a host that
// debug/elf reads, if accepted, comes out as an object debug/elf reads with
// the package in place.
func FuzzEmbed(f *testing.F) {
	bin := pkg(f, "device")
	f.Add(object(elf.ELFCLASS64, elf.ET_REL), bin)
	f.Add(object(elf.ELFCLASS32, elf.ET_REL), bin)
	f.Add(object(elf.ELFCLASS64, elf.ET_REL)[:100], bin)
	f.Add(object(elf.ELFCLASS64, elf.ET_REL), bin[:len(bin)-8])
	f.Add([]byte("\x7fELF"), []byte{})
	f.Fuzz(func(t *testing.T, host, bin []byte) {
		out, err := embed(host, bin)
		if err != nil {
			return
		}
		ef, err := elf.NewFile(bytes.NewReader(out))
		if err != nil {
			if _, herr := elf.NewFile(bytes.NewReader(host)); herr != nil {
				return // garbage that debug/elf refuses as input too (say, a bogus SHF_COMPRESSED section 0)
			}
			t.Fatalf("accepted input gave an output debug/elf rejects: %v", err)
		}
		var found bool
		for _, s := range ef.Sections {
			if s.Type == 0x6fff4c0b && s.Name == Section {
				data, _ := s.Data()
				found = found || bytes.Equal(data, bin)
			}
		}
		if !found {
			t.Fatal("the package is not in the output")
		}
	})
}
