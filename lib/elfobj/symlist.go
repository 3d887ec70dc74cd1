package elfobj

import "debug/elf"

// Symbol is one defined symbol of a symbol table.
type Symbol struct {
	Name  string
	Type  elf.SymType
	Bind  elf.SymBind
	Other uint8 // st_other: visibility and machine flags (CUDA's STO_ENTRY marks kernels)
}

// DefinedSymbols lists the symbols that the first symbol table of type
// typ (SHT_SYMTAB or SHT_DYNSYM) defines, in table order, less STT_FILE
// and STT_SECTION ones: with Bind not STB_LOCAL, what a loader can find by
// name in a device image.
func (f *File) DefinedSymbols(typ elf.SectionType) ([]Symbol, error) {
	tabs := f.SectionsByType(uint32(typ))
	if len(tabs) == 0 {
		return nil, nil
	}
	s := tabs[0]
	if int(s.Link) >= len(f.Sections) || s.Link == 0 {
		return nil, &FormatError{int64(s.Offset), "symbol table string table index out of range:", s.Link}
	}
	var out []Symbol
	var offs []uint32
	err := f.symbolChunks(s, func(first int, b, _ []byte) error {
		for j := 0; j*f.c.symSize() < len(b); j++ {
			sym := f.c.decodeSym(b[j*f.c.symSize():])
			if first+j == 0 || sym.shndx == shnUndef || sym.typ() == elf.STT_FILE || sym.typ() == elf.STT_SECTION {
				continue
			}
			out = append(out, Symbol{Type: sym.typ(), Bind: sym.bind(), Other: sym.other})
			offs = append(offs, sym.name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	names, err := f.stringsAt(f.Sections[s.Link], offs)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Name = names[i]
	}
	return out, nil
}
