package elfobj

import (
	"debug/elf"
	"fmt"
)

// SymbolSectionError reports a symbol defined in a section the file does
// not have: its st_shndx is past the section header table. llvm-objcopy
// refuses such a file, so the drop-in tools that would run it (the
// bundler's -type=o bundling and unbundling) print Objcopy's text.
type SymbolSectionError struct {
	Off   int64  // file offset of the symbol's entry
	Name  string // the symbol's name
	Index uint32 // its st_shndx
}

// Objcopy is llvm-objcopy's message for the symbol (LLVM 22).
func (e *SymbolSectionError) Objcopy() string {
	return fmt.Sprintf("symbol '%s' is defined has invalid section index %d", e.Name, e.Index)
}

func (e *SymbolSectionError) Error() string {
	return fmt.Sprintf("elfobj: %s at offset 0x%x", e.Objcopy(), e.Off)
}

// Is makes errors.Is(err, ErrFormat) true.
func (e *SymbolSectionError) Is(target error) bool { return target == ErrFormat }

// checkSymbolSections fails, as llvm-objcopy does, on the first symbol of
// a SHT_SYMTAB whose st_shndx (neither SHN_UNDEF nor reserved) names no
// section. Edits renumber or copy st_shndx through the section table, so
// such a symbol must be refused before anything is written.
func (f *File) checkSymbolSections() error {
	for _, s := range f.SectionsByType(uint32(elf.SHT_SYMTAB)) {
		es := f.c.symSize()
		err := f.symbolChunks(s, func(first int, syms, _ []byte) error {
			for j := 0; (j+1)*es <= len(syms); j++ {
				sym := f.c.decodeSym(syms[j*es:])
				if sym.shndx == shnUndef || sym.shndx >= shnLoReserve || int(sym.shndx) < len(f.Sections) {
					continue
				}
				return f.symbolSectionError(s, first+j, sym, uint32(sym.shndx))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolSectionError names symbol i of symtab, defined in section index.
func (f *File) symbolSectionError(symtab Section, i int, sym rawSym, index uint32) error {
	e := &SymbolSectionError{Off: int64(symtab.Offset) + int64(i*f.c.symSize()), Index: index}
	if l := int(symtab.Link); l > 0 && l < len(f.Sections) {
		if names, err := f.stringsAt(f.Sections[l], []uint32{sym.name}); err == nil {
			e.Name = names[0]
		}
	}
	return e
}
