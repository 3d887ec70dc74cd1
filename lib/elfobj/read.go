package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"io"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// readChunk bounds single reads of tables, so a lying size field cannot
// force one large allocation before the data is seen.
const readChunk = 1 << 20

// Open parses the ELF header, the program headers and the section header
// table (with section names) of the ELF file in r, which holds size bytes.
// Section contents are not read.
func Open(r io.ReaderAt, size int64) (*File, error) {
	var ident [elf.EI_NIDENT]byte
	n, err := r.ReadAt(ident[:], 0)
	if n < len(ident) && err != nil && err != io.EOF {
		return nil, err
	}
	if n < 4 || !IsELF(ident[:]) || size < 4 {
		return nil, ErrNotELF
	}
	if size < int64(len(ident)) || n < len(ident) {
		return nil, &FormatError{0, "truncated ELF identification", nil}
	}
	f := &File{r: r, size: size, OSABI: elf.OSABI(ident[elf.EI_OSABI])}
	if err := f.readIdent(ident[:]); err != nil {
		return nil, err
	}
	if size < int64(f.c.ehdrSize()) {
		return nil, &FormatError{0, "truncated ELF header", nil}
	}
	f.ehdr = make([]byte, f.c.ehdrSize())
	if err := exactio.ReadAt(r, f.ehdr, 0); err != nil {
		return nil, err
	}
	h := f.c.decodeEhdr(f.ehdr)
	f.Type = elf.Type(f.c.bo.Uint16(f.ehdr[16:]))
	f.Machine = elf.Machine(f.c.bo.Uint16(f.ehdr[18:]))
	// e_version is not checked, as LLVM's ELF reader does not: NVIDIA's
	// cubins keep their CUDA ABI version there (0x76 for sm_80 from CUDA
	// 11.8), and llvm-objdump-22 --offloading reads them.
	f.Entry, f.Flags, f.phoff, f.shoff = h.entry, h.flags, h.phoff, h.shoff
	if err := f.readSections(h); err != nil {
		return nil, err
	}
	if err := f.readProgs(h); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) readIdent(ident []byte) error {
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS32:
		f.Class = elf.ELFCLASS32
	case elf.ELFCLASS64:
		f.Class = elf.ELFCLASS64
	default:
		return &FormatError{elf.EI_CLASS, "unknown ELF class", ident[elf.EI_CLASS]}
	}
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		f.ByteOrder = binary.LittleEndian
	case elf.ELFDATA2MSB:
		f.ByteOrder = binary.BigEndian
	default:
		return &FormatError{elf.EI_DATA, "unknown ELF data encoding", ident[elf.EI_DATA]}
	}
	if v := ident[elf.EI_VERSION]; v != byte(elf.EV_CURRENT) {
		return &FormatError{elf.EI_VERSION, "unknown ELF identification version", v}
	}
	f.c = codec{is64: f.Class == elf.ELFCLASS64, bo: f.ByteOrder}
	return nil
}

// readSections reads the section header table, resolving the extended
// numbering kept in section 0, and the section names.
func (f *File) readSections(h ehdrFields) error {
	if h.shoff == 0 {
		if h.shnum != 0 || h.shstrndx != 0 {
			return &FormatError{0, "sections without a section header table", nil}
		}
		return nil
	}
	entsize := uint64(f.c.shdrSize())
	if uint64(h.shentsize) != entsize {
		return &FormatError{0, "unexpected section header size", h.shentsize}
	}
	if h.shoff > uint64(f.size) || uint64(f.size)-h.shoff < entsize {
		return &FormatError{0, "section header table offset out of range", h.shoff}
	}
	first := make([]byte, entsize)
	if err := exactio.ReadAt(f.r, first, int64(h.shoff)); err != nil {
		return err
	}
	f.sec0 = f.c.decodeShdr(first)
	f.hasSHT = true
	shnum := uint64(h.shnum)
	if shnum == 0 {
		shnum = f.sec0.Size // extended numbering
	}
	if shnum == 0 || shnum > (uint64(f.size)-h.shoff)/entsize {
		return &FormatError{int64(h.shoff), "section count does not fit the file:", shnum}
	}
	table, err := readTable(f.r, int64(h.shoff), shnum*entsize)
	if err != nil {
		return err
	}
	f.Sections = make([]Section, shnum)
	for i := range f.Sections {
		s := f.c.decodeShdr(table[uint64(i)*entsize:])
		s.Index = i
		if err := f.checkSection(s, h.shoff+uint64(i)*entsize); err != nil {
			return err
		}
		f.Sections[i] = s
	}
	strndx := uint64(h.shstrndx)
	if strndx == shnXIndex {
		strndx = uint64(f.sec0.Link)
	}
	if strndx >= shnum {
		return &FormatError{0, "section name table index out of range:", strndx}
	}
	f.ShStrIndex = int(strndx)
	return f.readNames()
}

// checkSection rejects section contents that lie outside the file.
func (f *File) checkSection(s Section, hdrOff uint64) error {
	if s.Index == 0 || !hasBytes(s) {
		return nil
	}
	if s.Offset > uint64(f.size) || s.Size > uint64(f.size)-s.Offset {
		return &FormatError{int64(hdrOff), "section contents past end of file: section", s.Index}
	}
	return nil
}

func (f *File) readNames() error {
	if f.ShStrIndex == 0 {
		return nil
	}
	st := f.Sections[f.ShStrIndex]
	if !hasBytes(st) {
		return &FormatError{int64(f.shoff), "section name table has no contents", nil}
	}
	if err := f.checkStringTable(f.ShStrIndex, st); err != nil {
		return err
	}
	offs := make([]uint32, len(f.Sections))
	for i, s := range f.Sections {
		offs[i] = s.nameOff
	}
	names, err := f.stringsAt(st, offs)
	if err != nil {
		return err
	}
	for i, name := range names {
		f.Sections[i].Name = name
	}
	return nil
}

// readProgs decodes and checks the program header table.
func (f *File) readProgs(h ehdrFields) error {
	progs, err := f.progs(h)
	f.Progs = progs
	return err
}

// progs decodes the program header table, checking that it and every
// segment lie within the file.
func (f *File) progs(h ehdrFields) ([]Prog, error) {
	phnum := uint64(h.phnum)
	if phnum == pnXNum && f.hasSHT {
		phnum = uint64(f.sec0.Info)
	}
	if phnum == 0 {
		return nil, nil
	}
	entsize := uint64(f.c.phdrSize())
	if uint64(h.phentsize) != entsize {
		return nil, &FormatError{0, "unexpected program header size", h.phentsize}
	}
	if h.phoff > uint64(f.size) || phnum > (uint64(f.size)-h.phoff)/entsize {
		return nil, &FormatError{0, "program header table does not fit the file:", phnum}
	}
	table, err := f.bytesAt(h.phoff, phnum*entsize)
	if err != nil {
		return nil, err
	}
	progs := make([]Prog, phnum)
	for i := range progs {
		p := f.c.decodePhdr(table[uint64(i)*entsize:])
		if p.Filesz > 0 && (p.Offset > uint64(f.size) || p.Filesz > uint64(f.size)-p.Offset) {
			return nil, &FormatError{int64(h.phoff + uint64(i)*entsize), "segment past end of file: segment", i}
		}
		progs[i] = p
	}
	return progs, nil
}

// readTable reads n bytes at off in bounded chunks.
func readTable(r io.ReaderAt, off int64, n uint64) ([]byte, error) {
	if n <= readChunk { // the common case, in one read
		b := make([]byte, n)
		if err := exactio.ReadAt(r, b, off); err != nil {
			return nil, err
		}
		return b, nil
	}
	b := make([]byte, 0, min(n, readChunk))
	for n > 0 {
		c := min(n, readChunk)
		chunk := make([]byte, c)
		if err := exactio.ReadAt(r, chunk, off); err != nil {
			return nil, err
		}
		b = append(b, chunk...)
		off += int64(c)
		n -= c
	}
	return b, nil
}
