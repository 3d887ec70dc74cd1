package wrapper

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// ErrNotELF marks an image that is not ELF, so notes cannot be added to it;
// clang-offload-wrapper only warns about it and embeds the image unchanged.
var ErrNotELF = errors.New("wrapper: not an ELF image")

// NoteError reports a malformed ELF image met while adding notes.
type NoteError struct {
	Off int64 // offset of the offending field
	Msg string
}

func (e *NoteError) Error() string {
	return fmt.Sprintf("wrapper: ELF image: %s at offset %#x", e.Msg, e.Off)
}

// The LLVMOMPOFFLOAD note types (llvm/BinaryFormat/ELF.h).
const (
	ntOMPOffloadVersion         = 1
	ntOMPOffloadProducer        = 2
	ntOMPOffloadProducerVersion = 3
)

// DefaultProducerVersion is written as the producer version note when none
// is given: the LLVM release whose formats this package follows.
const DefaultProducerVersion = "22.1.8"

// maxShstrtab bounds the section name table read from an image.
const maxShstrtab = 16 << 20

// AddOpenMPNotes returns im with a .note.openmp section holding the three
// LLVMOMPOFFLOAD notes clang-offload-wrapper --add-omp-offload-notes adds:
// version "1.0", producer "LLVM" and producerVersion (DefaultProducerVersion
// if empty). The original bytes are kept as they are; the notes, a grown
// copy of the section name table and a new section header table are
// appended, and the ELF header points at them. The result reads from im.Data
// on demand and has no Path. Non-ELF images give ErrNotELF.
func AddOpenMPNotes(im Image, producerVersion string) (Image, error) {
	if producerVersion == "" {
		producerVersion = DefaultProducerVersion
	}
	e, err := readELFLayout(im.Data, im.Size)
	if err != nil {
		return Image{}, err
	}
	notes := e.notes([][2]any{
		{ntOMPOffloadVersion, "1.0"},
		{ntOMPOffloadProducer, "LLVM"},
		{ntOMPOffloadProducerVersion, producerVersion},
	})
	noteOff := alignUp(im.Size, 4)
	strOff := noteOff + int64(len(notes))
	shstr := append(append([]byte(nil), e.shstrtab...), ".note.openmp\x00"...)
	shOff := alignUp(strOff+int64(len(shstr)), int64(e.wordSize))
	headers := e.newHeaders(uint64(strOff), uint64(len(shstr)), uint64(noteOff), uint64(len(notes)))
	hdr := e.patchedHeader(uint64(shOff))

	var c composite
	c.bytes(hdr)
	c.reader(im.Data, int64(len(hdr)), im.Size-int64(len(hdr)))
	c.zeros(noteOff - im.Size)
	c.bytes(notes)
	c.bytes(shstr)
	c.zeros(shOff - strOff - int64(len(shstr)))
	c.bytes(headers)
	return Image{Data: &c, Size: c.size, Arch: im.Arch}, nil
}

// elfLayout is what adding a section needs from an ELF image.
type elfLayout struct {
	order     binary.ByteOrder
	class     elf.Class
	wordSize  int
	header    []byte // the ELF header bytes
	shoff     uint64
	shentsize int
	shnum     int
	shstrndx  int
	sections  []byte // the section header table
	shstrtab  []byte
}

func readELFLayout(r io.ReaderAt, size int64) (*elfLayout, error) {
	ident := make([]byte, elf.EI_NIDENT)
	if size < int64(len(ident)) {
		return nil, ErrNotELF
	}
	if _, err := r.ReadAt(ident, 0); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(ident, []byte(elf.ELFMAG)) {
		return nil, ErrNotELF
	}
	e := &elfLayout{class: elf.Class(ident[elf.EI_CLASS])}
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		e.order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		e.order = binary.BigEndian
	default:
		return nil, &NoteError{elf.EI_DATA, "unknown data encoding"}
	}
	hsize := 64
	switch e.class {
	case elf.ELFCLASS64:
		e.wordSize = 8
	case elf.ELFCLASS32:
		e.wordSize, hsize = 4, 52
	default:
		return nil, &NoteError{elf.EI_CLASS, "unknown class"}
	}
	if size < int64(hsize) {
		return nil, &NoteError{0, "truncated ELF header"}
	}
	e.header = make([]byte, hsize)
	if _, err := r.ReadAt(e.header, 0); err != nil {
		return nil, err
	}
	return e, e.readSections(r, size)
}

// Offsets of the fields of the ELF header that follow e_entry.
func (e *elfLayout) fieldOff(name string) int {
	w := e.wordSize
	base := 24 + 2*w // e_ident(16) e_type e_machine e_version(8) e_entry e_phoff
	switch name {
	case "shoff":
		return base
	case "shentsize":
		return base + w + 4 + 2 + 2 + 2
	case "shnum":
		return base + w + 4 + 2 + 2 + 2 + 2
	}
	return base + w + 4 + 2 + 2 + 2 + 2 + 2 // shstrndx
}

func (e *elfLayout) readSections(r io.ReaderAt, size int64) error {
	o := e.order
	if e.wordSize == 8 {
		e.shoff = o.Uint64(e.header[e.fieldOff("shoff"):])
	} else {
		e.shoff = uint64(o.Uint32(e.header[e.fieldOff("shoff"):]))
	}
	e.shentsize = int(o.Uint16(e.header[e.fieldOff("shentsize"):]))
	e.shnum = int(o.Uint16(e.header[e.fieldOff("shnum"):]))
	e.shstrndx = int(o.Uint16(e.header[e.fieldOff("shstrndx"):]))
	want := 40
	if e.wordSize == 8 {
		want = 64
	}
	switch {
	case e.shoff == 0 || e.shnum == 0:
		return &NoteError{int64(e.fieldOff("shoff")), "no section header table (or extended numbering)"}
	case e.shentsize != want:
		return &NoteError{int64(e.fieldOff("shentsize")), fmt.Sprintf("section header size %d", e.shentsize)}
	case e.shstrndx == 0 || e.shstrndx >= e.shnum:
		return &NoteError{int64(e.fieldOff("shstrndx")), fmt.Sprintf("section name table index %d", e.shstrndx)}
	case e.shoff > uint64(size) || uint64(e.shnum*e.shentsize) > uint64(size)-e.shoff:
		return &NoteError{int64(e.fieldOff("shoff")), "section header table past end of file"}
	}
	e.sections = make([]byte, e.shnum*e.shentsize)
	if _, err := r.ReadAt(e.sections, int64(e.shoff)); err != nil {
		return err
	}
	off, sz := e.secField(e.shstrndx, "offset"), e.secField(e.shstrndx, "size")
	if sz > maxShstrtab || off > uint64(size) || sz > uint64(size)-off {
		return &NoteError{int64(e.shoff) + int64(e.shstrndx*e.shentsize), "section name table past end of file"}
	}
	e.shstrtab = make([]byte, sz)
	if _, err := r.ReadAt(e.shstrtab, int64(off)); err != nil {
		return err
	}
	return nil
}

// secField reads the offset or size of section i.
func (e *elfLayout) secField(i int, name string) uint64 {
	b := e.sections[i*e.shentsize:]
	if e.wordSize == 8 {
		if name == "offset" {
			return e.order.Uint64(b[24:])
		}
		return e.order.Uint64(b[32:])
	}
	if name == "offset" {
		return uint64(e.order.Uint32(b[16:]))
	}
	return uint64(e.order.Uint32(b[20:]))
}

func (e *elfLayout) putWord(b []byte, v uint64) {
	if e.wordSize == 8 {
		e.order.PutUint64(b, v)
	} else {
		e.order.PutUint32(b, uint32(v))
	}
}

// notes encodes ELF notes named LLVMOMPOFFLOAD: sizes and type in the image's
// byte order, name and descriptor padded to 4.
func (e *elfLayout) notes(list [][2]any) []byte {
	var b []byte
	name := "LLVMOMPOFFLOAD\x00"
	for _, n := range list {
		desc := n[1].(string)
		var h [12]byte
		e.order.PutUint32(h[0:], uint32(len(name)))
		e.order.PutUint32(h[4:], uint32(len(desc)))
		e.order.PutUint32(h[8:], uint32(n[0].(int)))
		b = append(b, h[:]...)
		b = append(b, pad4(name)...)
		b = append(b, pad4(desc)...)
	}
	return b
}

func pad4(s string) []byte {
	b := []byte(s)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// newHeaders is the section header table with the name table moved and a
// SHT_NOTE section .note.openmp added at the end.
func (e *elfLayout) newHeaders(strOff, strSize, noteOff, noteSize uint64) []byte {
	b := append([]byte(nil), e.sections...)
	s := b[e.shstrndx*e.shentsize:]
	n := make([]byte, e.shentsize)
	w := e.wordSize
	o := e.order
	if w == 8 {
		o.PutUint64(s[24:], strOff)
		o.PutUint64(s[32:], strSize)
	} else {
		o.PutUint32(s[16:], uint32(strOff))
		o.PutUint32(s[20:], uint32(strSize))
	}
	o.PutUint32(n[0:], uint32(len(e.shstrtab)))
	o.PutUint32(n[4:], uint32(elf.SHT_NOTE))
	// sh_flags, sh_addr = 0; then sh_offset, sh_size, link, info, addralign
	e.putWord(n[8+2*w:], noteOff)
	e.putWord(n[8+3*w:], noteSize)
	e.putWord(n[16+4*w:], 4)
	return append(b, n...)
}

func (e *elfLayout) patchedHeader(shoff uint64) []byte {
	h := append([]byte(nil), e.header...)
	e.putWord(h[e.fieldOff("shoff"):], shoff)
	e.order.PutUint16(h[e.fieldOff("shnum"):], uint16(e.shnum+1))
	return h
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// composite is an io.ReaderAt over a sequence of byte slices, zero runs and
// ranges of other readers.
type composite struct {
	parts []part
	size  int64
}

type part struct {
	off, n int64
	b      []byte
	r      io.ReaderAt
	roff   int64
}

func (c *composite) add(p part) {
	if p.n > 0 {
		p.off = c.size
		c.parts = append(c.parts, p)
		c.size += p.n
	}
}

func (c *composite) bytes(b []byte)                     { c.add(part{b: b, n: int64(len(b))}) }
func (c *composite) zeros(n int64)                      { c.add(part{n: n}) }
func (c *composite) reader(r io.ReaderAt, off, n int64) { c.add(part{r: r, roff: off, n: n}) }

func (c *composite) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("wrapper: negative offset")
	}
	total := 0
	i := sort.Search(len(c.parts), func(i int) bool { return c.parts[i].off+c.parts[i].n > off })
	for ; i < len(c.parts) && len(p) > 0; i++ {
		pt := c.parts[i]
		rel := off - pt.off
		k := min(int64(len(p)), pt.n-rel)
		var err error
		switch {
		case pt.b != nil:
			copy(p[:k], pt.b[rel:])
		case pt.r != nil:
			var n int
			n, err = pt.r.ReadAt(p[:k], pt.roff+rel)
			if n < int(k) && err == nil {
				err = io.ErrUnexpectedEOF
			}
			if err == io.EOF && n == int(k) {
				err = nil
			}
		default:
			clear(p[:k])
		}
		if err != nil {
			return total, err
		}
		total += int(k)
		p = p[k:]
		off += k
	}
	if len(p) > 0 {
		return total, io.EOF
	}
	return total, nil
}
