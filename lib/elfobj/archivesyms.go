package elfobj

import (
	"bytes"
	"debug/elf"
	"io"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// ArchiveSymbolsAt returns what Open(r, size) followed by ArchiveSymbols
// returns, without building a File: archive writers list the symbols of
// thousands of members, and Open's section names and small reads dominate
// that work. It succeeds exactly when Open and ArchiveSymbols both do and
// then returns the same names; on malformed input the error may differ.
//
// It reads the ELF header, the section header table, the section name
// table (only to check it as Open does), the program headers if any, and
// the symbol and string tables, each in one read where it is no larger
// than a read chunk.
func ArchiveSymbolsAt(r io.ReaderAt, size int64) ([]string, error) {
	return archiveSymbols(r, size, nil)
}

// ArchiveSymbolsBytes is ArchiveSymbolsAt(bytes.NewReader(b), len(b)),
// reading the tables in place rather than copying them. The names do not
// share memory with b.
func ArchiveSymbolsBytes(b []byte) ([]string, error) {
	return archiveSymbols(bytes.NewReader(b), int64(len(b)), b)
}

// archiveSymbols is ArchiveSymbolsAt; mem, if not nil, is r's contents.
func archiveSymbols(r io.ReaderAt, size int64, mem []byte) ([]string, error) {
	f, h, err := leanHeader(r, size)
	if err != nil {
		return nil, err
	}
	f.mem = mem
	t, err := f.leanSections(h)
	if err != nil {
		return nil, err
	}
	if _, err := f.progs(h); err != nil {
		return nil, err
	}
	return f.leanSymbols(t)
}

// leanHeader reads and checks the identification and ELF header as Open
// does, in one read.
func leanHeader(r io.ReaderAt, size int64) (*File, ehdrFields, error) {
	var buf [64]byte // the larger (64-bit) header
	n, err := r.ReadAt(buf[:min(int64(len(buf)), max(size, 0))], 0)
	if n < elf.EI_NIDENT && err != nil && err != io.EOF {
		return nil, ehdrFields{}, err
	}
	if n < 4 || !IsELF(buf[:n]) || size < 4 {
		return nil, ehdrFields{}, ErrNotELF
	}
	if size < elf.EI_NIDENT || n < elf.EI_NIDENT {
		return nil, ehdrFields{}, &FormatError{0, "truncated ELF identification", nil}
	}
	f := &File{r: r, size: size, OSABI: elf.OSABI(buf[elf.EI_OSABI])}
	if err := f.readIdent(buf[:elf.EI_NIDENT]); err != nil {
		return nil, ehdrFields{}, err
	}
	hs := f.c.ehdrSize()
	if size < int64(hs) || n < hs {
		if err != nil && err != io.EOF {
			return nil, ehdrFields{}, err
		}
		return nil, ehdrFields{}, &FormatError{0, "truncated ELF header", nil}
	}
	b := buf[:hs]
	h := f.c.decodeEhdr(b)
	f.Type = elf.Type(f.c.bo.Uint16(b[16:]))
	f.Machine = elf.Machine(f.c.bo.Uint16(b[18:]))
	// e_version is not checked, as LLVM's ELF reader does not: NVIDIA's
	// cubins keep their CUDA ABI version there (0x76 for sm_80 from CUDA
	// 11.8), and llvm-objdump-22 --offloading reads them.
	f.Entry, f.Flags, f.phoff, f.shoff = h.entry, h.flags, h.phoff, h.shoff
	return f, h, nil
}

// leanTables is what the lean path keeps of the section header table: the
// indexes of the sections it needs, the rest checked and dropped.
type leanTables struct {
	shdrs  []byte // the raw section header table
	num    int
	symtab int // first SHT_SYMTAB, 0 if none
}

func (f *File) shdr(t *leanTables, i int) Section {
	s := f.c.decodeShdr(t.shdrs[i*f.c.shdrSize():])
	s.Index = i
	return s
}

// leanSections reads and checks the section header table as readSections
// and readNames do, without decoding it into a File.
func (f *File) leanSections(h ehdrFields) (*leanTables, error) {
	t := &leanTables{}
	if h.shoff == 0 {
		if h.shnum != 0 || h.shstrndx != 0 {
			return nil, &FormatError{0, "sections without a section header table", nil}
		}
		return t, nil
	}
	entsize := uint64(f.c.shdrSize())
	if uint64(h.shentsize) != entsize {
		return nil, &FormatError{0, "unexpected section header size", h.shentsize}
	}
	if h.shoff > uint64(f.size) || uint64(f.size)-h.shoff < entsize {
		return nil, &FormatError{0, "section header table offset out of range", h.shoff}
	}
	shnum := uint64(h.shnum)
	if shnum == 0 { // extended numbering: the count is in section 0
		first := make([]byte, entsize)
		if err := exactio.ReadAt(f.r, first, int64(h.shoff)); err != nil {
			return nil, err
		}
		shnum = f.c.decodeShdr(first).Size
	}
	if shnum == 0 || shnum > (uint64(f.size)-h.shoff)/entsize {
		return nil, &FormatError{int64(h.shoff), "section count does not fit the file:", shnum}
	}
	var err error
	if t.shdrs, err = f.bytesAt(h.shoff, shnum*entsize); err != nil {
		return nil, err
	}
	t.num = int(shnum)
	f.sec0 = f.c.decodeShdr(t.shdrs)
	f.hasSHT = true
	for i := 1; i < t.num; i++ {
		// Only the fields checkSection looks at, to keep this loop cheap.
		b := t.shdrs[i*int(entsize):]
		s := Section{Index: i, Type: f.c.bo.Uint32(b[4:])}
		if f.c.is64 {
			s.Offset, s.Size = f.c.bo.Uint64(b[24:]), f.c.bo.Uint64(b[32:])
		} else {
			s.Offset, s.Size = uint64(f.c.bo.Uint32(b[16:])), uint64(f.c.bo.Uint32(b[20:]))
		}
		if err := f.checkSection(s, h.shoff+uint64(i)*entsize); err != nil {
			return nil, err
		}
		if t.symtab == 0 && s.Type == uint32(elf.SHT_SYMTAB) {
			t.symtab = i
		}
	}
	strndx := uint64(h.shstrndx)
	if strndx == shnXIndex {
		strndx = uint64(f.sec0.Link)
	}
	if strndx >= shnum {
		return nil, &FormatError{0, "section name table index out of range:", strndx}
	}
	f.ShStrIndex = int(strndx)
	return t, f.checkNames(t)
}

// checkNames fails where readNames would.
func (f *File) checkNames(t *leanTables) error {
	if f.ShStrIndex == 0 {
		return nil
	}
	st := f.shdr(t, f.ShStrIndex)
	if !hasBytes(st) {
		return &FormatError{int64(f.shoff), "section name table has no contents", nil}
	}
	if err := f.checkStringTable(f.ShStrIndex, st); err != nil {
		return err
	}
	offs := make([]uint32, t.num)
	for i := range offs {
		offs[i] = f.c.bo.Uint32(t.shdrs[i*f.c.shdrSize():])
	}
	_, err := f.stringsAt(st, offs)
	return err
}

// leanSymbols is ArchiveSymbols over the raw section header table.
func (f *File) leanSymbols(t *leanTables) ([]string, error) {
	if t.symtab == 0 {
		return nil, nil
	}
	s := f.shdr(t, t.symtab)
	if int(s.Link) >= t.num || s.Link == 0 {
		return nil, &FormatError{int64(s.Offset), "symbol table string table index out of range:", s.Link}
	}
	es := uint64(f.c.symSize())
	if s.EntSize != es || s.Size%es != 0 {
		return nil, &FormatError{int64(s.Offset), "bad symbol table entry size in section", s.Index}
	}
	count := s.Size / es
	for j := 1; j < t.num; j++ {
		// The extended indexes are not needed, but a short table is an error.
		if f.c.bo.Uint32(t.shdrs[j*f.c.shdrSize()+4:]) != uint32(elf.SHT_SYMTAB_SHNDX) {
			continue
		}
		if x := f.shdr(t, j); int(x.Link) == t.symtab {
			if x.Size/4 < count {
				return nil, &FormatError{int64(x.Offset), "extended index table shorter than its symbol table:", j}
			}
			break
		}
	}
	per := uint64(readChunk) / es
	if f.mem != nil {
		per = count // all at once, in place
	}
	var buf []byte
	var offs []uint32
	for first := uint64(0); first < count; first += per {
		b, err := f.chunkAt(&buf, s.Offset+first*es, min(per, count-first)*es)
		if err != nil {
			return nil, err
		}
		offs = f.appendSymbols(offs, b, first == 0)
	}
	names, err := f.stringsAt(f.shdr(t, int(s.Link)), offs)
	if err != nil {
		return nil, err
	}
	return f.dropMappingSymbols(names), nil
}

// appendSymbols appends the name offsets of the symbols in a chunk of raw
// symbols that ArchiveSymbols' rules keep.
func (f *File) appendSymbols(offs []uint32, b []byte, skipNull bool) []uint32 {
	es := f.c.symSize()
	for j := 0; j+es <= len(b); j += es {
		if skipNull && j == 0 {
			continue // the null symbol
		}
		sym := f.c.decodeSym(b[j:])
		if sym.bind() == elf.STB_LOCAL || sym.shndx == shnUndef ||
			sym.typ() == elf.STT_FILE || sym.typ() == elf.STT_SECTION {
			continue
		}
		offs = append(offs, sym.name)
	}
	return offs
}

// bytesAt returns the n bytes at off: in place when the file is in memory,
// else read (in bounded chunks).
func (f *File) bytesAt(off, n uint64) ([]byte, error) {
	if f.mem != nil {
		if off > uint64(len(f.mem)) || n > uint64(len(f.mem))-off {
			return nil, io.ErrUnexpectedEOF
		}
		return f.mem[off : off+n : off+n], nil
	}
	return readTable(f.r, int64(off), n)
}

// chunkAt is bytesAt reading into *buf, which is reused between calls.
func (f *File) chunkAt(buf *[]byte, off, n uint64) ([]byte, error) {
	if f.mem != nil {
		return f.bytesAt(off, n)
	}
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	return b, exactio.ReadAt(f.r, b, int64(off))
}
