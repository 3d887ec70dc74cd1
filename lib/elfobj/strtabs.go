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
	tables map[int][]byte    // input index of a string table → new contents
	symOff map[uint32]uint32 // symbol table: old st_name → new
	secOff map[uint32]uint32 // section name table: old sh_name → new
	extra  []uint32          // the added sections' names → offset
	symtab int               // input index of the symbol table; 0: none rebuilt
}

// planTables reads the names that stay, adds extra (the names of sections
// being added), and lays out the tables they live in. It returns nil (keep
// the tables) for anything but one SHT_SYMTAB with SHT_STRTAB tables of
// sane size in a relocatable object.
//
// Names are taken by their offsets in the old tables, never as strings
// hashed or compared one by one: every symbol or section may name a tail
// of one long string (tableLayout).
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
	if sym < 0 {
		return p.planNamesOnly(extra)
	}
	if !p.rebuildable(int(f.Sections[sym].Link)) || !p.rebuildable(shstr) {
		return nil, nil
	}
	str := int(f.Sections[sym].Link)
	old, err := p.readTable(str)
	if err != nil {
		return nil, err
	}
	symNames := &tableLayout{old: strtabs.NewTable(old, "\x00")}
	err = f.symbolChunks(f.Sections[sym], func(_ int, syms, _ []byte) error {
		for j := 0; j*f.c.symSize() < len(syms); j++ {
			off := f.c.decodeSym(syms[j*f.c.symSize():]).name
			if uint64(off) >= uint64(len(old)) {
				return &FormatError{int64(f.Sections[sym].Offset), "symbol name outside its string table", off}
			}
			symNames.offs = append(symNames.offs, off)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	secNames := symNames
	if str != shstr {
		oldSec, err := p.readTable(shstr)
		if err != nil {
			return nil, err
		}
		secNames = &tableLayout{old: strtabs.NewTable(oldSec, "\x00")}
	}
	for i, s := range f.Sections {
		if i != 0 && !p.dropped[i] {
			secNames.offs = append(secNames.offs, s.nameOff)
		}
	}
	secNames.extra = extra
	t := &newTables{tables: map[int][]byte{}, symtab: sym}
	if str == shstr {
		t.tables[str], t.symOff, t.extra = symNames.build()
		t.secOff = t.symOff
	} else {
		t.tables[str], t.symOff, _ = symNames.build()
		t.tables[shstr], t.secOff, t.extra = secNames.build()
	}
	return t, nil
}

// planNamesOnly plans an object without a symbol table (one stripped
// with --strip-all, say): llvm-objcopy still lays its section-name table
// out again, sorted as StringTableBuilder sorts, so appending the new names
// would give other bytes than LLVM's.
func (p *removal) planNamesOnly(extra []string) (*newTables, error) {
	f := p.f
	shstr := f.ShStrIndex
	if !p.rebuildable(shstr) {
		return nil, nil
	}
	old, err := p.readTable(shstr)
	if err != nil {
		return nil, err
	}
	names := &tableLayout{old: strtabs.NewTable(old, "\x00"), extra: extra}
	for i, s := range f.Sections {
		if i != 0 && !p.dropped[i] {
			names.offs = append(names.offs, s.nameOff)
		}
	}
	t := &newTables{tables: map[int][]byte{}}
	t.tables[shstr], t.secOff, t.extra = names.build()
	return t, nil
}

// tableLayout is the names of one new string table: those at offs of the
// old table, then extra.
type tableLayout struct {
	old   *strtabs.Table
	offs  []uint32
	extra []string
}

// build lays the table out (strtab.BuildRefs) and returns it, each old
// offset's new one, and extra's offsets. Names of the old table that end
// at the same terminator are tails of the longest of them: only that one
// is a string to sort and write, the others refer to it, so the work is
// proportional to the table, whatever the names' lengths.
func (l *tableLayout) build() ([]byte, map[uint32]uint32, []uint32) {
	type group struct{ base, start int }
	byEnd := map[int]*group{} // terminator offset → longest name ending there
	ends := make([]int, len(l.offs))
	var groups []*group
	for i, off := range l.offs {
		name, _ := l.old.At(int(off)) // unterminated: to the table's end
		end := int(off) + len(name)
		ends[i] = end
		g := byEnd[end]
		if g == nil {
			g = &group{start: int(off)}
			byEnd[end] = g
			groups = append(groups, g)
		}
		g.start = min(g.start, int(off))
	}
	var strs []string
	for _, g := range groups {
		g.base = len(strs)
		name, _ := l.old.At(g.start)
		strs = append(strs, name)
	}
	var refs []strtabs.Ref
	for i, off := range l.offs {
		g := byEnd[ends[i]]
		refs = append(refs, strtabs.Ref{Of: g.base, Skip: int(off) - g.start})
	}
	for _, s := range l.extra {
		refs = append(refs, strtabs.Ref{Of: len(strs)})
		strs = append(strs, s)
	}
	tab, offs := strtabs.BuildRefs(strs, refs)
	moved := make(map[uint32]uint32, len(l.offs))
	for i, off := range l.offs {
		moved[off] = uint32(offs[i])
	}
	extra := make([]uint32, len(l.extra))
	for i := range l.extra {
		extra[i] = uint32(offs[len(l.offs)+i])
	}
	return tab, moved, extra
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
	if old != 0 {
		o.hdr.nameOff = t.secOff[o.hdr.nameOff]
	}
	if t.symtab > 0 && old == t.symtab {
		o.emit = p.symtabEmitter(p.f.Sections[old], t.symOff)
	}
}
