package elfobj

import (
	"debug/elf"
	"io"
	"slices"
	"strings"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// symbolChunks walks the symbols of a SHT_SYMTAB/SHT_DYNSYM section in
// bounded chunks, passing the raw entries and, when the table has a
// SHT_SYMTAB_SHNDX companion, the matching 4-byte extended indices (else
// nil). The buffers are reused between calls.
func (f *File) symbolChunks(sym Section, fn func(first int, syms, xidx []byte) error) error {
	es := uint64(f.c.symSize())
	if sym.EntSize != es || sym.Size%es != 0 {
		return &FormatError{int64(sym.Offset), "bad symbol table entry size in section", sym.Name}
	}
	count := sym.Size / es
	xs := f.shndxFor(sym.Index)
	if xs != nil && xs.Size/4 < count {
		return &FormatError{int64(xs.Offset), "extended index table shorter than its symbol table:", xs.Name}
	}
	per := uint64(readChunk) / es
	buf := make([]byte, min(count, per)*es)
	var xbuf []byte
	if xs != nil {
		xbuf = make([]byte, min(count, per)*4)
	}
	for first := uint64(0); first < count; first += per {
		k := min(per, count-first)
		syms := buf[:k*es]
		if err := exactio.ReadAt(f.r, syms, int64(sym.Offset+first*es)); err != nil {
			return err
		}
		var xidx []byte
		if xs != nil {
			xidx = xbuf[:k*4]
			if err := exactio.ReadAt(f.r, xidx, int64(xs.Offset+first*4)); err != nil {
				return err
			}
		}
		if err := fn(int(first), syms, xidx); err != nil {
			return err
		}
	}
	return nil
}

// shndxFor returns the SHT_SYMTAB_SHNDX section linked to symbol table i.
func (f *File) shndxFor(i int) *Section {
	for j := range f.Sections {
		s := &f.Sections[j]
		if j != 0 && s.Type == uint32(elf.SHT_SYMTAB_SHNDX) && int(s.Link) == i {
			return s
		}
	}
	return nil
}

// symtabRewriter checks that no symbol of s is defined in a dropped section
// and returns an emitter that renumbers st_shndx.
func (p *removal) symtabRewriter(s Section) (bool, func(io.Writer) error, error) {
	f, c := p.f, p.f.c
	es, off := c.symSize(), c.symShndxOff()
	n := uint32(len(f.Sections))
	changed := false
	err := f.symbolChunks(s, func(first int, syms, xidx []byte) error {
		for j := 0; j*es < len(syms); j++ {
			e := syms[j*es:]
			sh := c.bo.Uint16(e[off:])
			sec := uint32(sh)
			switch {
			case sh == shnXIndex && xidx == nil:
				return &FormatError{int64(s.Offset) + int64((first+j)*es), "SHN_XINDEX symbol without extended index table", nil}
			case sh == shnXIndex:
				sec = c.bo.Uint32(xidx[4*j:])
			case sh == shnUndef || sh >= shnLoReserve:
				continue
			}
			if sec == 0 {
				continue
			}
			if sec >= n && sh != shnXIndex {
				return f.symbolSectionError(s, first+j, c.decodeSym(e), sec)
			}
			if sec >= n {
				return &FormatError{int64(s.Offset) + int64((first+j)*es), "symbol section index out of range:", sec}
			}
			if p.dropped[sec] {
				return unsupported("%s (index %d in %s) is defined in removed section %q",
					f.describeSymbol(s, c.decodeSym(e)), first+j, s.Name, f.Sections[sec].Name)
			}
			if sh != shnXIndex && p.newIndex[sec] != sec {
				changed = true
			}
		}
		return nil
	})
	return changed, p.symtabEmitter(s, nil), err
}

// symtabEmitter writes symbol table s with st_shndx renumbered and, when
// names is not nil, st_name mapped through it.
func (p *removal) symtabEmitter(s Section, names map[uint32]uint32) func(io.Writer) error {
	f, c := p.f, p.f.c
	es, off := c.symSize(), c.symShndxOff()
	return func(w io.Writer) error {
		return f.symbolChunks(s, func(_ int, syms, _ []byte) error {
			for j := 0; j*es < len(syms); j++ {
				e := syms[j*es:]
				if sh := c.bo.Uint16(e[off:]); sh != shnUndef && sh < shnLoReserve {
					c.bo.PutUint16(e[off:], uint16(p.mapIndex(uint32(sh))))
				}
				if names != nil {
					c.bo.PutUint32(e, names[c.bo.Uint32(e)])
				}
			}
			_, err := w.Write(syms)
			return err
		})
	}
}

// shndxRewriter renumbers the entries of a SHT_SYMTAB_SHNDX table.
func (p *removal) shndxRewriter(s Section) (bool, func(io.Writer) error, error) {
	f := p.f
	bo := f.ByteOrder
	n := uint32(len(f.Sections))
	if s.Size%4 != 0 {
		return false, nil, &FormatError{int64(s.Offset), "bad extended index table size:", s.Size}
	}
	walk := func(fn func(chunk []byte) error) error {
		buf := make([]byte, min(s.Size, readChunk))
		for done := uint64(0); done < s.Size; {
			k := min(uint64(len(buf)), s.Size-done)
			if err := exactio.ReadAt(f.r, buf[:k], int64(s.Offset+done)); err != nil {
				return err
			}
			if err := fn(buf[:k]); err != nil {
				return err
			}
			done += k
		}
		return nil
	}
	changed := false
	err := walk(func(chunk []byte) error {
		for j := 0; j < len(chunk); j += 4 {
			v := bo.Uint32(chunk[j:])
			if v >= n {
				return &FormatError{int64(s.Offset), "extended section index out of range:", v}
			}
			changed = changed || p.mapIndex(v) != v
		}
		return nil
	})
	emit := func(w io.Writer) error {
		return walk(func(chunk []byte) error {
			for j := 0; j < len(chunk); j += 4 {
				bo.PutUint32(chunk[j:], p.mapIndex(bo.Uint32(chunk[j:])))
			}
			_, err := w.Write(chunk)
			return err
		})
	}
	return changed, emit, err
}

// ArchiveSymbols lists the symbols that LLVM's archive writer enters in an
// archive symbol table for this file: those of the first SHT_SYMTAB that
// are not local, not undefined, not STT_FILE or STT_SECTION, and not
// mapping symbols or fake labels of the machine, in table order.
func (f *File) ArchiveSymbols() ([]string, error) {
	syms := f.SectionsByType(uint32(elf.SHT_SYMTAB))
	if len(syms) == 0 {
		return nil, nil
	}
	s := syms[0]
	if int(s.Link) >= len(f.Sections) || s.Link == 0 {
		return nil, &FormatError{int64(s.Offset), "symbol table string table index out of range:", s.Link}
	}
	var offs []uint32
	err := f.symbolChunks(s, func(first int, b, _ []byte) error {
		for j := 0; j*f.c.symSize() < len(b); j++ {
			if first+j == 0 {
				continue // the null symbol
			}
			sym := f.c.decodeSym(b[j*f.c.symSize():])
			if sym.bind() == elf.STB_LOCAL || sym.shndx == shnUndef ||
				sym.typ() == elf.STT_FILE || sym.typ() == elf.STT_SECTION {
				continue
			}
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
	return f.dropMappingSymbols(names), nil
}

// dropMappingSymbols removes, in place, the names isMappingSymbol matches.
func (f *File) dropMappingSymbols(names []string) []string {
	return slices.DeleteFunc(names, f.isMappingSymbol)
}

// isMappingSymbol mirrors the machine-specific SF_FormatSpecific rules of
// LLVM's ELFObjectFile::getSymbolFlags.
func (f *File) isMappingSymbol(name string) bool {
	prefix := func(ps ...string) bool {
		for _, p := range ps {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	switch f.Machine {
	case elf.EM_AARCH64:
		return prefix("$d", "$x")
	case elf.EM_ARM:
		return name == "" || prefix("$d", "$t", "$a")
	case emCSKY:
		return prefix("$d", "$t")
	case elf.EM_RISCV:
		return name == ".L0 " || prefix("$d", "$x")
	}
	return false
}

// emCSKY is EM_CSKY, which debug/elf does not name.
const emCSKY elf.Machine = 252
