package elfobj

import (
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// A section name table without its final NUL is refused by Open, as
// LLVM's readers refuse it; a symbol table's string table without one is
// refused by the edits, as llvm-objcopy refuses it, before they write.
func TestUnterminatedStringTables(t *testing.T) {
	const names = "SHT_STRTAB string table section [index 4] is non-null terminated"
	const syms = "SHT_STRTAB string table section [index 3] is non-null terminated"
	b := hostile.ELFUnterminatedStrtab(false, ".extra")
	_, err := Open(bytes.NewReader(b), int64(len(b)))
	if te := (*StringTableError)(nil); !errors.As(err, &te) || te.LLVM() != names || !errors.Is(err, ErrFormat) {
		t.Errorf("Open of an unterminated name table: %v; want %q", err, names)
	}
	b = hostile.ELFUnterminatedStrtab(true)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("Open of an unterminated symbol string table: %v", err)
	}
	// DefinedSymbols refuses the name that runs off, in its own words.
	if _, err := f.DefinedSymbols(elf.SHT_SYMTAB); !errors.Is(err, ErrFormat) {
		t.Errorf("DefinedSymbols: %v; want a format error", err)
	}
	for what, err := range map[string]error{
		"AddSections":    AddSections(io.Discard, bytes.NewReader(b), int64(len(b)), []NewSection{{Name: ".new", Type: uint32(elf.SHT_PROGBITS), Size: 1, Data: bytes.NewReader([]byte{1})}}),
		"RemoveSections": RemoveSections(io.Discard, bytes.NewReader(b), int64(len(b)), func(Section) bool { return false }),
	} {
		if te := (*StringTableError)(nil); !errors.As(err, &te) || te.LLVM() != syms {
			t.Errorf("%s: %v; want %q", what, err, syms)
		}
	}
}
