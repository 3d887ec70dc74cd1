package elfobj

import (
	"debug/elf"
	"fmt"
	"io"
)

// RemoveSections writes to w a copy of the ELF file in src (size bytes)
// without the sections for which drop returns true. Relocation sections
// whose target is dropped go too, and groups left empty are dropped.
// Section indices are renumbered everywhere they occur: symbol st_shndx
// and SHT_SYMTAB_SHNDX entries, sh_link, the sh_info of relocation
// sections (and of SHF_INFO_LINK sections), group member lists and
// e_shstrndx. It fails if a kept symbol is defined in a dropped section or
// a kept section links to one. For executables and shared objects only
// non-allocated sections after the loadable image, numbered after every
// allocated section, can be removed.
func RemoveSections(w io.Writer, src io.ReaderAt, size int64, drop func(Section) bool) error {
	f, err := Open(src, size)
	if err != nil {
		return err
	}
	if err := f.checkSymbolStringTables(); err != nil {
		return err
	}
	rw, err := f.newRewrite()
	if err != nil {
		return err
	}
	p, err := f.planRemoval(rw, drop)
	if err != nil {
		return err
	}
	if err := p.rewriteKept(rw); err != nil {
		return err
	}
	return rw.write(w)
}

// removal is the renumbering plan.
type removal struct {
	f        *File
	dropped  []bool
	newIndex []uint32
	groups   map[int][]uint32 // kept group index → input member list (with flag word)
	ungroup  []bool           // kept member of a dropped group: clear SHF_GROUP
}

func (f *File) planRemoval(rw *rewrite, drop func(Section) bool) (*removal, error) {
	n := len(f.Sections)
	p := &removal{f: f, dropped: make([]bool, n), ungroup: make([]bool, n), groups: map[int][]uint32{}}
	for i := 1; i < n; i++ {
		p.dropped[i] = drop(f.Sections[i])
	}
	if p.dropped[f.ShStrIndex] {
		return nil, unsupported("cannot remove the section name table %q", f.Sections[f.ShStrIndex].Name)
	}
	p.dropRelocations()
	if err := p.readGroups(); err != nil {
		return nil, err
	}
	if rw.fixed {
		if err := p.checkFixed(rw); err != nil {
			return nil, err
		}
	}
	p.newIndex = make([]uint32, n)
	next := uint32(0)
	for i := range n {
		if !p.dropped[i] {
			p.newIndex[i] = next
			next++
		}
	}
	return p, p.checkLinks()
}

// isReloc reports whether s.Info names the section s applies to.
func isReloc(s Section) bool {
	switch s.Type {
	case uint32(elf.SHT_REL), uint32(elf.SHT_RELA), SHT_CREL:
		return true
	}
	return s.Flags&uint64(elf.SHF_INFO_LINK) != 0
}

// dropRelocations drops relocation sections whose target is dropped.
func (p *removal) dropRelocations() {
	for changed := true; changed; {
		changed = false
		for i, s := range p.f.Sections {
			if i == 0 || p.dropped[i] || !isReloc(s) {
				continue
			}
			if t := int(s.Info); t > 0 && t < len(p.dropped) && p.dropped[t] {
				p.dropped[i], changed = true, true
			}
		}
	}
}

// readGroups loads the member lists of groups, drops groups left empty
// and marks kept members of dropped groups.
func (p *removal) readGroups() error {
	f := p.f
	for i, s := range f.Sections {
		if i == 0 || s.Type != uint32(elf.SHT_GROUP) {
			continue
		}
		words, err := f.readGroup(s)
		if err != nil {
			return err
		}
		kept := 0
		for _, m := range words[1:] {
			if !p.dropped[m] {
				kept++
			}
		}
		if kept == 0 {
			p.dropped[i] = true
		}
		if p.dropped[i] {
			for _, m := range words[1:] {
				p.ungroup[m] = true
			}
			continue
		}
		p.groups[i] = words
	}
	return nil
}

func (f *File) readGroup(s Section) ([]uint32, error) {
	n := uint64(len(f.Sections))
	if s.Size < 4 || s.Size%4 != 0 || s.Size/4 > n {
		return nil, &FormatError{int64(s.Offset), "bad group size:", s.Size}
	}
	b, err := readTable(f.r, int64(s.Offset), s.Size)
	if err != nil {
		return nil, err
	}
	words := make([]uint32, s.Size/4)
	for i := range words {
		words[i] = f.ByteOrder.Uint32(b[4*i:])
		if i > 0 && (words[i] == 0 || uint64(words[i]) >= n) {
			return nil, &FormatError{int64(s.Offset) + int64(4*i), "bad group member index", words[i]}
		}
	}
	return words, nil
}

// checkFixed limits removal in executables to trailing non-allocated
// sections so the loadable image and allocated section indices stay put.
func (p *removal) checkFixed(rw *rewrite) error {
	lastAlloc := 0
	for i, s := range p.f.Sections {
		if s.Flags&uint64(elf.SHF_ALLOC) != 0 {
			lastAlloc = i
		}
	}
	for i, s := range p.f.Sections {
		if !p.dropped[i] {
			continue
		}
		if rw.secs[i].pinned && s.Size > 0 && hasBytes(s) {
			return unsupported("section %q lies inside the loadable image of a %v file", s.Name, p.f.Type)
		}
		if i < lastAlloc {
			return unsupported("removing section %q would renumber allocated sections", s.Name)
		}
	}
	return nil
}

// checkLinks refuses kept sections that link to dropped ones.
func (p *removal) checkLinks() error {
	for i, s := range p.f.Sections {
		if i == 0 || p.dropped[i] {
			continue
		}
		if l := int(s.Link); l > 0 && l < len(p.dropped) && p.dropped[l] {
			return unsupported("section %q links to removed section %q", s.Name, p.f.Sections[l].Name)
		}
	}
	return nil
}

// mapIndex renumbers a section index; values outside [1, n) are kept.
func (p *removal) mapIndex(i uint32) uint32 {
	if i == 0 || int(i) >= len(p.newIndex) {
		return i
	}
	return p.newIndex[i]
}

// rewriteKept replaces rw.secs by the kept sections with renumbered
// headers and, where needed, rewritten contents.
func (p *removal) rewriteKept(rw *rewrite) error {
	f := p.f
	tables, err := p.planTables(rw, nil)
	if err != nil {
		return err
	}
	var out []outSec
	for i, o := range rw.secs {
		if p.dropped[i] {
			continue
		}
		s := o.hdr
		o.hdr.Index = int(p.newIndex[i])
		o.hdr.Link = p.mapIndex(s.Link)
		if isReloc(s) {
			o.hdr.Info = p.mapIndex(s.Info)
		}
		if p.ungroup[i] {
			o.hdr.Flags &^= uint64(elf.SHF_GROUP)
		}
		if err := p.rewriteContents(&o, s); err != nil {
			return err
		}
		if tables != nil {
			tables.apply(p, &o, i)
		}
		out = append(out, o)
	}
	rw.secs = out
	rw.shstrndx = int(p.newIndex[f.ShStrIndex])
	if tables != nil {
		return nil
	}
	return p.rebuildNames(rw)
}

// rewriteContents installs emitters for tables that hold section indices.
func (p *removal) rewriteContents(o *outSec, s Section) error {
	var changed bool
	var emit func(io.Writer) error
	var err error
	switch s.Type {
	case uint32(elf.SHT_SYMTAB), uint32(elf.SHT_DYNSYM):
		changed, emit, err = p.symtabRewriter(s)
	case uint32(elf.SHT_SYMTAB_SHNDX):
		changed, emit, err = p.shndxRewriter(s)
	case uint32(elf.SHT_GROUP):
		changed, emit, err = p.groupRewriter(s, o)
	}
	if err != nil || !changed {
		return err
	}
	if o.pinned {
		return unsupported("section %q lies inside the loadable image and would need renumbering", s.Name)
	}
	o.emit = emit
	return nil
}

func (p *removal) groupRewriter(s Section, o *outSec) (bool, func(io.Writer) error, error) {
	words := p.groups[s.Index]
	put := func(b []byte, v uint32) []byte {
		var t [4]byte
		p.f.ByteOrder.PutUint32(t[:], v)
		return append(b, t[:]...)
	}
	b := put(nil, words[0])
	for _, m := range words[1:] {
		if !p.dropped[m] {
			b = put(b, p.newIndex[m])
		}
	}
	o.hdr.Size = uint64(len(b))
	changed := len(b) != 4*len(words)
	for i, m := range words[1:] {
		changed = changed || (!p.dropped[m] && p.newIndex[m] != words[i+1])
	}
	return changed, func(w io.Writer) error { _, err := w.Write(b); return err }, nil
}

// rebuildNames writes a compact section-name table unless the table also
// holds other strings (LLVM shares it with the symbol names), in which case
// it is kept as is.
func (p *removal) rebuildNames(rw *rewrite) error {
	f := p.f
	st := f.Sections[f.ShStrIndex]
	for i, s := range f.Sections {
		if i != f.ShStrIndex && !p.dropped[i] && int(s.Link) == f.ShStrIndex {
			return nil
		}
	}
	out := &rw.secs[rw.shstrndx]
	if out.pinned || st.Type != uint32(elf.SHT_STRTAB) {
		return nil
	}
	table := []byte{0}
	seen := map[string]uint32{"": 0}
	for i := range rw.secs[1:] {
		h := &rw.secs[i+1].hdr
		off, ok := seen[h.Name]
		if !ok {
			off = uint32(len(table))
			seen[h.Name] = off
			table = append(append(table, h.Name...), 0)
		}
		h.nameOff = off
	}
	out.hdr.Size = uint64(len(table))
	out.emit = func(w io.Writer) error { _, err := w.Write(table); return err }
	return nil
}

// describeSymbol names a symbol for error messages.
func (f *File) describeSymbol(symtab Section, sym rawSym) string {
	if sym.typ() == elf.STT_SECTION {
		return "section symbol"
	}
	if l := int(symtab.Link); l > 0 && l < len(f.Sections) {
		if names, err := f.stringsAt(f.Sections[l], []uint32{sym.name}); err == nil && names[0] != "" {
			return fmt.Sprintf("symbol %q", names[0])
		}
	}
	return "unnamed symbol"
}
