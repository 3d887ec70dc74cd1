package relobj

import (
	"debug/elf"
	"encoding/binary"
	"io"
)

var le = binary.LittleEndian

const (
	ehdrSize = 64
	shdrSize = 64
	symSize  = 24
	relaSize = 24
)

// strtab is an ELF string table: a leading NUL, then each distinct string
// once, in the order first added.
type strtab struct {
	b   []byte
	off map[string]uint32
}

func newStrtab() *strtab { return &strtab{b: []byte{0}, off: map[string]uint32{"": 0}} }

func (t *strtab) add(s string) uint32 {
	if o, ok := t.off[s]; ok {
		return o
	}
	o := uint32(len(t.b))
	t.b = append(append(t.b, s...), 0)
	t.off[s] = o
	return o
}

// shdr is a section header being laid out.
type shdr struct {
	name           uint32
	typ            elf.SectionType
	flags          elf.SectionFlag
	off, size      uint64
	link, info     uint32
	align, entsize uint64
	write          func(w io.Writer) error // nil for NOBITS and the null section
	src            *Section
	strName        string
}

// layout is the complete plan of the output file.
type layout struct {
	headers []*shdr
	symIdx  map[*Symbol]uint32
	shoff   uint64
	shstrnx uint32
}

// WriteTo writes the object to w. It validates the File first and writes
// nothing if it is invalid.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if err := f.validate(); err != nil {
		return 0, err
	}
	l, err := f.plan()
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: w}
	if err := l.write(cw, f); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

func (f *File) plan() (*layout, error) {
	l := &layout{symIdx: map[*Symbol]uint32{}}
	shstr := newStrtab()
	secIdx := map[*Section]uint32{}
	l.headers = append(l.headers, &shdr{})
	for _, s := range f.sections {
		h := &shdr{strName: s.Name, typ: s.Type, flags: s.Flags, size: uint64(s.size),
			align: max(s.Align, 1), entsize: s.EntSize, src: s}
		secIdx[s] = uint32(len(l.headers))
		l.headers = append(l.headers, h)
		if len(s.relocs) > 0 {
			l.headers = append(l.headers, &shdr{strName: ".rela" + s.Name, typ: elf.SHT_RELA,
				flags: elf.SHF_INFO_LINK, size: uint64(len(s.relocs)) * relaSize, align: 8,
				entsize: relaSize, info: secIdx[s], src: s})
		}
	}
	symtabIdx := uint32(len(l.headers))
	syms, firstGlobal := f.orderSymbols()
	for i, s := range syms {
		l.symIdx[s] = uint32(i + 1)
	}
	str := newStrtab()
	symBytes := f.symbolTable(syms, secIdx, str)
	l.headers = append(l.headers,
		&shdr{strName: ".symtab", typ: elf.SHT_SYMTAB, size: uint64(len(symBytes)), align: 8,
			entsize: symSize, link: symtabIdx + 1, info: firstGlobal},
		&shdr{strName: ".strtab", typ: elf.SHT_STRTAB, size: uint64(len(str.b)), align: 1},
		&shdr{strName: ".shstrtab", typ: elf.SHT_STRTAB, align: 1})
	if len(l.headers) >= int(elf.SHN_LORESERVE) {
		return nil, invalid("file", "too many sections (%d)", len(l.headers))
	}
	for _, h := range l.headers[1:] {
		h.name = shstr.add(h.strName)
		if h.typ == elf.SHT_RELA {
			h.link = symtabIdx
		}
	}
	l.shstrnx = uint32(len(l.headers) - 1)
	n := len(l.headers)
	l.headers[n-3].write = writeBytes(symBytes)
	l.headers[n-2].write = writeBytes(str.b)
	l.headers[n-1].size = uint64(len(shstr.b))
	l.headers[n-1].write = writeBytes(shstr.b)
	for _, h := range l.headers[1 : n-3] {
		s := h.src
		switch {
		case h.typ == elf.SHT_RELA:
			h.write = writeBytes(f.relaBytes(s, l.symIdx))
		case s.Type != elf.SHT_NOBITS:
			h.write = s.writeContents
		}
	}
	off := uint64(ehdrSize)
	for _, h := range l.headers[1:] {
		off = alignUp(off, h.align)
		h.off = off
		if h.typ != elf.SHT_NOBITS {
			off += h.size
		}
	}
	l.shoff = alignUp(off, 8)
	return l, nil
}

// orderSymbols puts local symbols first, as ELF requires, keeping the order
// of addition within each group. It returns the index of the first global.
func (f *File) orderSymbols() ([]*Symbol, uint32) {
	var locals, globals []*Symbol
	for _, s := range f.symbols {
		if s.Bind == elf.STB_LOCAL {
			locals = append(locals, s)
		} else {
			globals = append(globals, s)
		}
	}
	return append(locals, globals...), uint32(len(locals) + 1)
}

func (f *File) symbolTable(syms []*Symbol, secIdx map[*Section]uint32, str *strtab) []byte {
	b := make([]byte, symSize*(len(syms)+1))
	for i, s := range syms {
		e := b[symSize*(i+1):]
		if s.Type != elf.STT_SECTION {
			le.PutUint32(e[0:], str.add(s.Name))
		}
		e[4] = byte(s.Bind)<<4 | byte(s.Type)&0xf
		e[5] = byte(s.Vis) & 3
		if s.Section != nil {
			le.PutUint16(e[6:], uint16(secIdx[s.Section]))
		}
		le.PutUint64(e[8:], s.Value)
		le.PutUint64(e[16:], s.Size)
	}
	return b
}

func (f *File) relaBytes(s *Section, symIdx map[*Symbol]uint32) []byte {
	b := make([]byte, relaSize*len(s.relocs))
	for i, r := range s.relocs {
		e := b[relaSize*i:]
		le.PutUint64(e[0:], r.Offset)
		le.PutUint64(e[8:], uint64(symIdx[r.Sym])<<32|uint64(r.Type))
		le.PutUint64(e[16:], uint64(r.Addend))
	}
	return b
}

func (l *layout) write(w *countWriter, f *File) error {
	if _, err := w.Write(f.ehdr(l)); err != nil {
		return err
	}
	for _, h := range l.headers[1:] {
		if h.write == nil {
			continue
		}
		if err := w.padTo(h.off); err != nil {
			return err
		}
		start := w.n
		if err := h.write(w); err != nil {
			return err
		}
		if uint64(w.n-start) != h.size {
			return invalid(h.strName, "contents changed size while writing (%d, want %d)", w.n-start, h.size)
		}
	}
	if err := w.padTo(l.shoff); err != nil {
		return err
	}
	b := make([]byte, shdrSize*len(l.headers))
	for i, h := range l.headers[1:] {
		e := b[shdrSize*(i+1):]
		le.PutUint32(e[0:], h.name)
		le.PutUint32(e[4:], uint32(h.typ))
		le.PutUint64(e[8:], uint64(h.flags))
		le.PutUint64(e[24:], h.off)
		le.PutUint64(e[32:], h.size)
		le.PutUint32(e[40:], h.link)
		le.PutUint32(e[44:], h.info)
		le.PutUint64(e[48:], h.align)
		le.PutUint64(e[56:], h.entsize)
	}
	_, err := w.Write(b)
	return err
}

func (f *File) ehdr(l *layout) []byte {
	b := make([]byte, ehdrSize)
	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	b[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	b[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le.PutUint16(b[16:], uint16(elf.ET_REL))
	le.PutUint16(b[18:], uint16(f.Machine))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[40:], l.shoff)
	le.PutUint32(b[48:], f.Flags)
	le.PutUint16(b[52:], ehdrSize)
	le.PutUint16(b[58:], shdrSize)
	le.PutUint16(b[60:], uint16(len(l.headers)))
	le.PutUint16(b[62:], uint16(l.shstrnx))
	return b
}

// writeContents streams the section's chunks to w.
func (s *Section) writeContents(w io.Writer) error {
	for _, c := range s.chunks {
		var err error
		switch {
		case c.b != nil:
			_, err = w.Write(c.b)
		case c.zero:
			err = writeZeros(w, c.n)
		default:
			var n int64
			n, err = io.Copy(w, io.NewSectionReader(c.r, 0, c.n))
			if err == nil && n != c.n {
				err = io.ErrUnexpectedEOF
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

var zeros [4096]byte

func writeZeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func alignUp(n, a uint64) uint64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countWriter) padTo(off uint64) error {
	if uint64(c.n) > off {
		return invalid("file", "layout overlap at %#x", off)
	}
	return writeZeros(c, int64(off)-c.n)
}
