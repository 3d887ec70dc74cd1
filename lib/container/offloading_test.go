package container

import (
	"bytes"
	"debug/elf"
	"errors"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// TestELFOffloadingByType: sections of type SHT_LLVM_OFFLOADING are
// visited whatever their names; a .llvm.offloading section of another
// type is not (LLVM 22's extractOffloadBinaries goes by type).
func TestELFOffloadingByType(t *testing.T) {
	host := tinyELF()
	add := []elfobj.NewSection{
		{Name: ".llvm.offloading", Type: uint32(elf.SHT_PROGBITS), Data: strings.NewReader("by name"), Size: 7},
		{Name: "packages", Type: elfobj.SHT_LLVM_OFFLOADING, Data: strings.NewReader("one"), Size: 3},
		{Name: "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906", Type: elfobj.SHT_LLVM_OFFLOADING, Data: strings.NewReader("two"), Size: 3},
	}
	for i := range add {
		add[i].Align = 1
	}
	var b bytes.Buffer
	if err := elfobj.AddSections(&b, bytes.NewReader(host), int64(len(host)), add); err != nil {
		t.Fatal(err)
	}
	got, err := pieces(t, ELFOffloading, b.Bytes())
	want := "packages=one __CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906=two"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if _, err := pieces(t, ELFOffloading, b.Bytes()[:40]); err == nil {
		t.Fatal("a truncated header was walked")
	}
}

// TestMembersAnyName: Members visits a member whose name is not a local
// path, where Archive stops with ar.ErrInsecurePath after the members
// before it.
func TestMembersAnyName(t *testing.T) {
	b := archiveOf(t, "a.o", "/abs.o", "c.o")
	got, err := pieces(t, Members, b)
	if want := "a.o=a.o /abs.o=/abs.o c.o=c.o"; err != nil || strings.Join(got, " ") != want {
		t.Fatalf("Members: got %q, %v; want %q", got, err, want)
	}
	got, err = pieces(t, Archive, b)
	if !errors.Is(err, ar.ErrInsecurePath) || strings.Join(got, " ") != "a.o=a.o" {
		t.Fatalf("Archive: got %q, %v; want a.o, then ar.ErrInsecurePath", got, err)
	}
	if _, err := pieces(t, Members, []byte("!<thin>\n")); !errors.Is(err, ar.ErrThin) {
		t.Fatalf("thin archive: %v", err)
	}
}

// TestCOFFSectionsInOrder: a section's name is resolved when the walk
// reaches it, as LLVM 22 does, so the section before a name that cannot
// be resolved is visited first (the packager reports what it finds there
// before the bad name, as llvm-offload-binary-22 does).
func TestCOFFSectionsInOrder(t *testing.T) {
	obj, _ := hostile.COFFObject(0x8664, 0, false, []hostile.COFFSection{{Name: ".llvm.offloading", Data: []byte("one")}, {Name: ".text", Data: []byte{0xc3}}})
	copy(obj[coffobj.HeaderSize+coffobj.SectionSize:], "/4x\x00\x00\x00\x00\x00")
	got, err := pieces(t, COFF, obj)
	var fe *coffobj.FormatError
	if !errors.As(err, &fe) || fe.Msg != "invalid section name" || strings.Join(got, " ") != ".llvm.offloading=one" {
		t.Fatalf("got %q, %v; want .llvm.offloading, then invalid section name", got, err)
	}
}
