package elfobj

import (
	"debug/elf"
	"io"

	"github.com/rules-offload/rules_offload/lib/exactio"
	strtabs "github.com/rules-offload/rules_offload/lib/strtab"
)

// maxRebuiltTable bounds the string tables RemoveSections lays out again
// (they are read into memory); larger ones are kept as they are.
const maxRebuiltTable = 64 << 20

// newTables is the plan for the string tables of a relocatable object after
// a removal: llvm-objcopy lays out the symbol names and the section names
// again with LLVM's StringTableBuilder, so the names of removed sections
// (and of their symbols) disappear and the bytes equal what the compiler
// wrote before the sections were added.
type newTables struct {
	tables  map[int][]byte            // input index of a string table → new contents
	offsets map[int]map[string]uint64 // the same → offset of each string in it
	symOff  map[uint32]uint32         // symbol table: old st_name → new
	symtab  int                       // input index of the symbol table; 0: none rebuilt
}

// planTables reads the names that stay, adds extra (the names of sections
// being added), and lays out the tables they live in. It returns nil (keep
// the tables) for anything but one SHT_SYMTAB with SHT_STRTAB tables of
// sane size in a relocatable object.
func (p *removal) planTables(rw *rewrite, extra []string) (*newTables, error) {
	f := p.f
	if rw.fixed || f.Type != elf.ET_REL {
		return nil, nil
	}
	sym := -1
	for i, s := range f.Sections {
		if s.Type == uint32(elf.SHT_SYMTAB) && !p.dropped[i] {
			if sym >= 0 {
				return nil, nil
			}
			sym = i
		}
	}
	shstr := f.ShStrIndex
	if sym < 0 || !p.rebuildable(int(f.Sections[sym].Link)) || !p.rebuildable(shstr) {
		return nil, nil
	}
	str := int(f.Sections[sym].Link)
	old, err := p.readTable(str)
	if err != nil {
		return nil, err
	}
	// The names are slices of the table, as Open's are: every symbol may
	// name one long string.
	oldNames := strtabs.NewTable(old, "\x00")
	var symNames []string
	var symOld []uint32
	err = f.symbolChunks(f.Sections[sym], func(_ int, syms, _ []byte) error {
		for j := 0; j*f.c.symSize() < len(syms); j++ {
			off := f.c.decodeSym(syms[j*f.c.symSize():]).name
			if uint64(off) >= uint64(len(old)) {
				return &FormatError{int64(f.Sections[sym].Offset), "symbol name outside its string table", off}
			}
			symOld = append(symOld, off)
			name, _ := oldNames.At(int(off)) // unterminated: to the table's end, as before
			symNames = append(symNames, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var secNames []string
	for i, s := range f.Sections {
		if i != 0 && !p.dropped[i] {
			secNames = append(secNames, s.Name)
		}
	}
	secNames = append(secNames, extra...)
	t := &newTables{tables: map[int][]byte{}, offsets: map[int]map[string]uint64{}, symOff: map[uint32]uint32{}, symtab: sym}
	if str == shstr {
		t.tables[str], t.offsets[str] = strtabs.Build(append(secNames, symNames...))
	} else {
		t.tables[str], t.offsets[str] = strtabs.Build(symNames)
		t.tables[shstr], t.offsets[shstr] = strtabs.Build(secNames)
	}
	for i, off := range symOld {
		t.symOff[off] = uint32(t.offsets[str][symNames[i]])
	}
	return t, nil
}

// rebuildable reports whether section i is a kept SHT_STRTAB small enough
// to lay out again.
func (p *removal) rebuildable(i int) bool {
	if i <= 0 || i >= len(p.f.Sections) || p.dropped[i] {
		return false
	}
	s := p.f.Sections[i]
	return s.Type == uint32(elf.SHT_STRTAB) && s.Size <= maxRebuiltTable
}

func (p *removal) readTable(i int) ([]byte, error) {
	s := p.f.Sections[i]
	b := make([]byte, s.Size)
	if err := exactio.ReadAt(p.f.r, b, int64(s.Offset)); err != nil {
		return nil, err
	}
	return b, nil
}

// apply installs the new tables for output section o, input section old:
// their contents, the section's name offset, and a symbol table emitter
// that renames as well as renumbers.
func (t *newTables) apply(p *removal, o *outSec, old int) {
	if tab, ok := t.tables[old]; ok {
		o.hdr.Size = uint64(len(tab))
		o.emit = func(w io.Writer) error { _, err := w.Write(tab); return err }
	}
	if names, ok := t.offsets[p.f.ShStrIndex]; ok {
		o.hdr.nameOff = uint32(names[o.hdr.Name])
	}
	if old == t.symtab {
		o.emit = p.symtabEmitter(p.f.Sections[old], t.symOff)
	}
}
