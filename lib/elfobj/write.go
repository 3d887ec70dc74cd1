package elfobj

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// maxFileAlign caps the file-offset alignment applied to a section, so a
// hostile sh_addralign cannot make us write gigabytes of padding. Readers
// need no more than the entry alignment of a table.
const maxFileAlign = 1 << 16

// outSec is one section of the output file, in output index order.
type outSec struct {
	hdr    Section                 // output header; Offset set by layout unless pinned
	pinned bool                    // lies in the copied image: offset kept, nothing emitted
	key    uint64                  // placement order among movable sections
	emit   func(w io.Writer) error // writes exactly hdr.Size bytes
}

// rewrite describes an output file: the copied prefix of the input (the
// ELF header, plus the loadable image for executables), then the movable
// sections, then the section header table.
type rewrite struct {
	f        *File
	fixed    bool   // executable/shared object: keep [0, prefix) byte for byte
	prefix   uint64 // end of the copied image
	secs     []outSec
	shstrndx int
	shoff    uint64
}

// newRewrite maps every input section to an output section that copies it.
func (f *File) newRewrite() (*rewrite, error) {
	if !f.hasSHT || f.ShStrIndex == 0 {
		return nil, unsupported("file has no section header table or section name table")
	}
	rw := &rewrite{f: f, fixed: f.Type != elf.ET_REL || len(f.Progs) > 0, shstrndx: f.ShStrIndex}
	rw.prefix = uint64(f.c.ehdrSize())
	if rw.fixed {
		rw.prefix = f.imageEnd()
	}
	rw.secs = make([]outSec, len(f.Sections))
	for i, s := range f.Sections {
		o := outSec{hdr: s, key: s.Offset, pinned: i == 0 || rw.isPinned(s)}
		if !o.pinned && hasBytes(s) {
			o.emit = f.copier(s)
		}
		rw.secs[i] = o
	}
	return rw, nil
}

// imageEnd is the end of everything an executable needs in place: headers,
// segments and allocated sections.
func (f *File) imageEnd() uint64 {
	end := uint64(f.c.ehdrSize())
	if len(f.Progs) > 0 {
		end = max(end, f.phoff+uint64(len(f.Progs))*uint64(f.c.phdrSize()))
	}
	for _, p := range f.Progs {
		if p.Filesz > 0 {
			end = max(end, p.Offset+p.Filesz)
		}
	}
	for _, s := range f.Sections[1:] {
		if s.Flags&uint64(elf.SHF_ALLOC) != 0 && hasBytes(s) {
			end = max(end, s.Offset+s.Size)
		}
	}
	return end
}

// hasBytes reports whether a section occupies file bytes.
func hasBytes(s Section) bool {
	return s.Type != uint32(elf.SHT_NOBITS) && s.Type != uint32(elf.SHT_NULL)
}

func (rw *rewrite) isPinned(s Section) bool {
	if !rw.fixed {
		return false
	}
	return !hasBytes(s) || s.Flags&uint64(elf.SHF_ALLOC) != 0 || s.Offset < rw.prefix
}

// copier streams an input section unchanged.
func (f *File) copier(s Section) func(io.Writer) error {
	return func(w io.Writer) error {
		n, err := io.Copy(w, f.SectionReader(s))
		if err == nil && uint64(n) != s.Size {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
}

// layout assigns offsets to movable sections and the section header table.
func (rw *rewrite) layout() ([]int, error) {
	var order []int
	for i, s := range rw.secs {
		if !s.pinned {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return rw.secs[order[a]].key < rw.secs[order[b]].key })
	pos := rw.prefix
	limit := rw.f.c.maxWord()
	for _, i := range order {
		h := &rw.secs[i].hdr
		h.Offset = alignUp(pos, fileAlign(h.Align))
		// The alignment padding stays even before a section without
		// bytes (.bss), as llvm-objcopy lays sections out: the next
		// section starts after it.
		pos = h.Offset
		if !hasBytes(*h) {
			continue
		}
		if h.Offset > limit || h.Size > limit-h.Offset {
			return nil, unsupported("output does not fit %v offsets", rw.f.Class)
		}
		pos = h.Offset + h.Size
	}
	rw.shoff = alignUp(pos, uint64(rw.f.c.wordSize()))
	if rw.shoff > limit {
		return nil, unsupported("output does not fit %v offsets", rw.f.Class)
	}
	return order, nil
}

func fileAlign(a uint64) uint64 {
	if a <= 1 {
		return 1
	}
	return min(a, maxFileAlign)
}

func alignUp(v, a uint64) uint64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

// write lays out and writes the whole output file.
func (rw *rewrite) write(w io.Writer) error {
	order, err := rw.layout()
	if err != nil {
		return err
	}
	for _, s := range rw.secs {
		if !rw.f.c.shdrFits(s.hdr) {
			return unsupported("section %q does not fit %v fields", s.hdr.Name, rw.f.Class)
		}
	}
	cw := &countWriter{w: bufio.NewWriterSize(w, 64<<10)}
	if err := rw.writeImage(cw); err != nil {
		return err
	}
	for _, i := range order {
		s := rw.secs[i]
		if !hasBytes(s.hdr) || s.emit == nil {
			continue
		}
		if err := cw.padTo(s.hdr.Offset); err != nil {
			return err
		}
		start := cw.n
		if err := s.emit(cw); err != nil {
			return fmt.Errorf("elfobj: writing section %q: %w", s.hdr.Name, err)
		}
		if cw.n-start != s.hdr.Size {
			return fmt.Errorf("elfobj: section %q: wrote %d bytes, want %d", s.hdr.Name, cw.n-start, s.hdr.Size)
		}
	}
	if err := cw.padTo(rw.shoff); err != nil {
		return err
	}
	if err := rw.writeHeaders(cw); err != nil {
		return err
	}
	return cw.w.Flush()
}

// writeImage writes the patched ELF header and, for executables, the rest
// of the loadable image unchanged.
func (rw *rewrite) writeImage(cw *countWriter) error {
	c := rw.f.c
	n := uint64(len(rw.secs))
	shnum, shstrndx := uint16(n), uint16(rw.shstrndx)
	if n >= shnLoReserve {
		shnum = 0
	}
	if rw.shstrndx >= shnLoReserve {
		shstrndx = shnXIndex
	}
	h := append([]byte(nil), rw.f.ehdr...)
	c.patchEhdr(h, rw.shoff, shnum, shstrndx)
	if _, err := cw.Write(h); err != nil {
		return err
	}
	rest := int64(rw.prefix) - int64(len(h))
	if rest <= 0 {
		return nil
	}
	m, err := io.Copy(cw, io.NewSectionReader(rw.f.r, int64(len(h)), rest))
	if err == nil && m != rest {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// writeHeaders writes the section header table; section 0 carries the
// section count and name-table index when they need extended numbering.
func (rw *rewrite) writeHeaders(cw *countWriter) error {
	c := rw.f.c
	s0 := rw.f.sec0
	// Section 0 is named by offset 0, as the gABI asks and llvm-objcopy
	// writes it: the name tables may have been laid out again, and any
	// other offset could then point past them.
	s0.nameOff, s0.Size, s0.Link = 0, 0, 0
	if n := len(rw.secs); n >= shnLoReserve {
		s0.Size = uint64(n)
	}
	if rw.shstrndx >= shnLoReserve {
		s0.Link = uint32(rw.shstrndx)
	}
	buf := c.encodeShdr(nil, s0)
	for _, s := range rw.secs[1:] {
		buf = c.encodeShdr(buf, s.hdr)
		if len(buf) >= readChunk {
			if _, err := cw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := cw.Write(buf)
	return err
}

// countWriter counts bytes written and pads with zeros.
type countWriter struct {
	w *bufio.Writer
	n uint64
}

func (cw *countWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += uint64(n)
	return n, err
}

// ReadFrom lets io.Copy fill the bufio buffer directly instead of
// allocating a copy buffer per section.
func (cw *countWriter) ReadFrom(r io.Reader) (int64, error) {
	n, err := cw.w.ReadFrom(r)
	cw.n += uint64(n)
	return n, err
}

func (cw *countWriter) padTo(off uint64) error {
	if off < cw.n {
		return errors.New("elfobj: internal error: layout overlaps")
	}
	if cw.n == off {
		return nil
	}
	zeros := make([]byte, min(off-cw.n, 4096))
	for cw.n < off {
		if _, err := cw.Write(zeros[:min(off-cw.n, uint64(len(zeros)))]); err != nil {
			return err
		}
	}
	return nil
}

// copyExact copies exactly n bytes from r and checks that no more follow.
func copyExact(w io.Writer, r io.Reader, n int64, name string) error {
	if r == nil {
		if n == 0 {
			return nil
		}
		return fmt.Errorf("elfobj: section %q: no data", name)
	}
	err := exactio.Copy(w, r, n)
	if se := (*exactio.SizeError)(nil); errors.As(err, &se) {
		return fmt.Errorf("elfobj: section %q: %w", name, err)
	}
	return err
}
