package elfobj

import (
	"debug/elf"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// NewSection is a section for AddSections. Data must yield exactly Size
// bytes. Align 0 is written as 0 (no constraint), like 1.
type NewSection struct {
	Name  string
	Type  uint32
	Flags uint64
	Align uint64
	Size  int64
	Data  io.Reader
}

// lastKey places sections after every input section.
const lastKey = math.MaxUint64

// AddSections writes to w a copy of the ELF file in src (size bytes) with
// secs appended after the existing sections, whose indices therefore stay
// valid for symbols and relocations. The section-name table is extended
// with the new names. Relocatable objects are re-laid out compactly;
// executables and shared objects keep their loadable image and accept only
// non-allocated new sections.
func AddSections(w io.Writer, src io.ReaderAt, size int64, secs []NewSection) error {
	f, err := Open(src, size)
	if err != nil {
		return err
	}
	rw, err := f.newRewrite()
	if err != nil {
		return err
	}
	if err := checkNewSections(secs, rw.fixed); err != nil {
		return err
	}
	if err := f.checkSymbolSections(); err != nil {
		return err
	}
	if err := f.checkSymbolStringTables(); err != nil {
		return err
	}
	offs, err := rw.extendNames(secs)
	if err != nil {
		return err
	}
	tables, err := f.relayTables(rw, secs)
	if err != nil {
		return err
	}
	for i, ns := range secs {
		ns := ns
		if tables != nil {
			offs[i] = tables.extra[i]
		}
		rw.secs = append(rw.secs, outSec{
			hdr: Section{
				Index: len(rw.secs), Name: ns.Name, Type: ns.Type, Flags: ns.Flags,
				Size: uint64(ns.Size), Align: ns.Align, nameOff: offs[i],
			},
			key:  lastKey,
			emit: func(w io.Writer) error { return copyExact(w, ns.Data, ns.Size, ns.Name) },
		})
	}
	return rw.write(w)
}

// relayTables lays the string tables of a relocatable object out again
// with the new sections' names, as llvm-objcopy --add-section does (the
// bundler's -type=o bundles are made that way), so that the output equals
// LLVM's byte for byte. It returns nil where the tables stay as they are
// (extended in place by extendNames).
func (f *File) relayTables(rw *rewrite, secs []NewSection) (*newTables, error) {
	if rw.fixed {
		return nil, nil
	}
	p, err := f.planRemoval(rw, func(Section) bool { return false })
	if err != nil {
		return nil, err
	}
	names := make([]string, len(secs))
	for i, s := range secs {
		names[i] = s.Name
	}
	tables, err := p.planTables(rw, names)
	if tables == nil || err != nil {
		return nil, err
	}
	for i := range rw.secs {
		tables.apply(p, &rw.secs[i], i)
	}
	return tables, nil
}

func checkNewSections(secs []NewSection, fixed bool) error {
	for _, s := range secs {
		switch {
		case s.Name == "" || strings.IndexByte(s.Name, 0) >= 0:
			return fmt.Errorf("elfobj: invalid new section name %q", s.Name)
		case s.Size < 0:
			return fmt.Errorf("elfobj: section %q: negative size", s.Name)
		case s.Type == uint32(elf.SHT_NULL) || s.Type == uint32(elf.SHT_NOBITS):
			return fmt.Errorf("elfobj: section %q: type %#x cannot carry data", s.Name, s.Type)
		case s.Align&(s.Align-1) != 0:
			return fmt.Errorf("elfobj: section %q: alignment %d is not a power of two", s.Name, s.Align)
		case fixed && s.Flags&uint64(elf.SHF_ALLOC) != 0:
			return unsupported("cannot add allocated section %q to an executable or shared object", s.Name)
		}
	}
	return nil
}

// extendNames appends the names not yet present to the section-name table
// and returns each new section's name offset.
func (rw *rewrite) extendNames(secs []NewSection) ([]uint32, error) {
	f := rw.f
	st := f.Sections[f.ShStrIndex]
	if st.Type != uint32(elf.SHT_STRTAB) || st.Flags&uint64(elf.SHF_ALLOC) != 0 {
		return nil, unsupported("section name table %q is not a plain string table", st.Name)
	}
	// The new names are looked up among the old ones by length first:
	// hashing every old name would cost the sum of their lengths, which
	// sections naming tails of one long string make huge.
	known := map[string]uint32{}
	lookup := func(name string) (uint32, bool) {
		if off, ok := known[name]; ok {
			return off, true
		}
		for _, s := range f.Sections[1:] {
			if len(s.Name) == len(name) && s.Name == name {
				return s.nameOff, true
			}
		}
		return 0, false
	}
	var extra []byte
	if st.Size > 0 {
		var last [1]byte
		if err := exactio.ReadAt(f.r, last[:], int64(st.Offset+st.Size-1)); err != nil {
			return nil, err
		}
		if last[0] != 0 {
			extra = append(extra, 0) // keep the last old name terminated
		}
	} else {
		extra = append(extra, 0) // offset 0 must be the empty name
	}
	offs := make([]uint32, len(secs))
	for i, s := range secs {
		off, ok := lookup(s.Name)
		if !ok {
			o := st.Size + uint64(len(extra))
			if o > math.MaxUint32 {
				return nil, unsupported("section name table too large")
			}
			off = uint32(o)
			known[s.Name] = off
			extra = append(append(extra, s.Name...), 0)
		}
		offs[i] = off
	}
	out := &rw.secs[f.ShStrIndex]
	out.hdr.Size = st.Size + uint64(len(extra))
	if out.pinned {
		out.pinned, out.key = false, lastKey // move it out of the image
	}
	out.emit = func(w io.Writer) error {
		if err := f.copier(st)(w); err != nil {
			return err
		}
		_, err := w.Write(extra)
		return err
	}
	return offs, nil
}
