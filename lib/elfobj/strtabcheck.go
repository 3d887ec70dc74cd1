package elfobj

import (
	"debug/elf"
	"fmt"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// StringTableError reports a string table that LLVM's ELF reader refuses:
// empty, or not ending in a NUL, so that its last string has no end. Open
// refuses such a section name table, as every LLVM tool does on reading
// the names; the symbol tables' string tables are checked by the edits
// (AddSections, RemoveSections), as llvm-objcopy checks them, while
// DefinedSymbols refuses only a name that runs off the table.
type StringTableError struct {
	Off   int64 // file offset of the table's section header
	Index int   // the table's section index
	Empty bool  // no bytes at all, rather than no final NUL
}

// LLVM is LLVM 22's message (ELFFile::getStringTable) for the table.
func (e *StringTableError) LLVM() string {
	what := "is non-null terminated"
	if e.Empty {
		what = "is empty"
	}
	return fmt.Sprintf("SHT_STRTAB string table section [index %d] %s", e.Index, what)
}

func (e *StringTableError) Error() string {
	return fmt.Sprintf("elfobj: %s at offset 0x%x", e.LLVM(), e.Off)
}

// ErrorOffset is Off, as FormatError's.
func (e *StringTableError) ErrorOffset() int64 { return e.Off }

// Is makes errors.Is(err, ErrFormat) true.
func (e *StringTableError) Is(target error) bool { return target == ErrFormat }

// checkStringTable fails unless s, section i, ends in a NUL: its last
// byte is read, nothing more.
func (f *File) checkStringTable(i int, s Section) error {
	e := &StringTableError{Off: int64(f.shoff) + int64(i)*int64(f.c.shdrSize()), Index: i}
	if s.Size == 0 || !hasBytes(s) {
		e.Empty = true
		return e
	}
	var last [1]byte
	if err := exactio.ReadAt(f.r, last[:], int64(s.Offset+s.Size-1)); err != nil {
		return err
	}
	if last[0] != 0 {
		return e
	}
	return nil
}

// checkSymbolStringTables checks, as llvm-objcopy does before an edit,
// the string table of every SHT_SYMTAB.
func (f *File) checkSymbolStringTables() error {
	for _, s := range f.SectionsByType(uint32(elf.SHT_SYMTAB)) {
		if l := int(s.Link); l > 0 && l < len(f.Sections) {
			if err := f.checkStringTable(l, f.Sections[l]); err != nil {
				return err
			}
		}
	}
	return nil
}
