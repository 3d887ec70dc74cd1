// Package relobj writes new ELF relocatable objects (ET_REL): sections,
// symbols and RELA relocations, for 64-bit little-endian targets (x86-64 and
// AArch64). It only creates objects; it never reads or edits them.
//
// Section contents may be given as bytes or as an io.ReaderAt that is copied
// when the object is written, so large payloads are streamed, never held in
// memory. Output is deterministic: sections, symbols and strings appear in
// the order they were added.
package relobj

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrInvalid marks a File that cannot be written: an unsupported machine, a
// relocation outside its section, a symbol of another file and the like.
var ErrInvalid = errors.New("relobj: invalid object")

// Error says what is wrong with a File; it wraps ErrInvalid.
type Error struct {
	What string // the section or symbol concerned
	Msg  string
}

func (e *Error) Error() string { return "relobj: " + e.What + ": " + e.Msg }

func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(what, format string, a ...any) error {
	return &Error{What: what, Msg: fmt.Sprintf(format, a...)}
}

// File is a relocatable object under construction.
type File struct {
	Machine elf.Machine
	// Flags is e_flags (0 for x86-64 and AArch64).
	Flags uint32

	sections []*Section
	symbols  []*Symbol
	secSyms  map[*Section]*Symbol
}

// New returns an empty object for machine, which must be EM_X86_64 or
// EM_AARCH64.
func New(machine elf.Machine) (*File, error) {
	switch machine {
	case elf.EM_X86_64, elf.EM_AARCH64:
	default:
		return nil, invalid("machine", "%v is not supported", machine)
	}
	return &File{Machine: machine, secSyms: map[*Section]*Symbol{}}, nil
}

// Section is one section of a File. Its contents are appended with Write,
// AppendReader and Zero; SHT_NOBITS sections only grow with Zero.
type Section struct {
	Name    string
	Type    elf.SectionType
	Flags   elf.SectionFlag
	Align   uint64 // a power of two; 0 means 1
	EntSize uint64

	file   *File
	chunks []chunk
	size   int64
	relocs []Reloc
}

// chunk is a run of section contents: bytes, a reader, or zeros.
type chunk struct {
	b    []byte
	r    io.ReaderAt
	n    int64
	zero bool
}

// Reloc is one RELA relocation of a section.
type Reloc struct {
	Offset uint64
	Sym    *Symbol
	Type   uint32 // elf.R_X86_64 or elf.R_AARCH64 value
	Addend int64
}

// Symbol is an entry of the symbol table. A nil Section means undefined.
type Symbol struct {
	Name    string
	Bind    elf.SymBind
	Type    elf.SymType
	Vis     elf.SymVis
	Section *Section
	Value   uint64
	Size    uint64

	file *File
}

// AddSection appends a section. Names must be unique within the file.
func (f *File) AddSection(name string, typ elf.SectionType, flags elf.SectionFlag, align uint64) *Section {
	s := &Section{Name: name, Type: typ, Flags: flags, Align: align, file: f}
	f.sections = append(f.sections, s)
	return s
}

// AddSymbol adds a symbol and returns it; its fields may be changed until the
// file is written.
func (f *File) AddSymbol(sym Symbol) *Symbol {
	s := sym
	s.file = f
	f.symbols = append(f.symbols, &s)
	return &s
}

// SectionSymbol returns the STT_SECTION symbol of s, creating it on first use.
func (f *File) SectionSymbol(s *Section) *Symbol {
	if sym := f.secSyms[s]; sym != nil {
		return sym
	}
	sym := f.AddSymbol(Symbol{Bind: elf.STB_LOCAL, Type: elf.STT_SECTION, Section: s})
	f.secSyms[s] = sym
	return sym
}

// Len returns the current size of the section contents.
func (s *Section) Len() int64 { return s.size }

// Write appends p to the section contents. The bytes are copied.
func (s *Section) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.Type == elf.SHT_NOBITS {
		return 0, invalid(s.Name, "data written to a SHT_NOBITS section")
	}
	s.chunks = append(s.chunks, chunk{b: append([]byte(nil), p...), n: int64(len(p))})
	s.size += int64(len(p))
	return len(p), nil
}

// AppendReader appends n bytes read from r (starting at offset 0) when the
// file is written.
func (s *Section) AppendReader(r io.ReaderAt, n int64) error {
	if s.Type == elf.SHT_NOBITS {
		return invalid(s.Name, "data written to a SHT_NOBITS section")
	}
	if n < 0 {
		return invalid(s.Name, "negative size %d", n)
	}
	s.chunks = append(s.chunks, chunk{r: r, n: n})
	s.size += n
	return nil
}

// Zero appends n zero bytes (or reserves n bytes of a SHT_NOBITS section).
func (s *Section) Zero(n int64) {
	if n <= 0 {
		return
	}
	s.chunks = append(s.chunks, chunk{zero: true, n: n})
	s.size += n
}

// AlignTo pads the section with zeros to a multiple of a.
func (s *Section) AlignTo(a int64) {
	if a > 1 {
		s.Zero((a - s.size%a) % a)
	}
}

// AddReloc records a relocation at offset off of the section.
func (s *Section) AddReloc(off uint64, sym *Symbol, typ uint32, addend int64) {
	s.relocs = append(s.relocs, Reloc{Offset: off, Sym: sym, Type: typ, Addend: addend})
}

// Relocs returns the relocations recorded so far.
func (s *Section) Relocs() []Reloc { return s.relocs }

// validate checks what the writer relies on, so that a bad File fails before
// any byte is written.
func (f *File) validate() error {
	names := map[string]bool{}
	for _, s := range f.sections {
		if s.file != f {
			return invalid(s.Name, "section of another file")
		}
		if s.Name == "" || strings.IndexByte(s.Name, 0) >= 0 {
			return invalid(fmt.Sprintf("%q", s.Name), "bad section name")
		}
		if names[s.Name] || reserved[s.Name] {
			return invalid(s.Name, "duplicate section name")
		}
		names[s.Name] = true
		if s.Align&(s.Align-1) != 0 {
			return invalid(s.Name, "alignment %d is not a power of two", s.Align)
		}
		for _, r := range s.relocs {
			if r.Sym == nil || r.Sym.file != f {
				return invalid(s.Name, "relocation at %#x has no symbol of this file", r.Offset)
			}
			if r.Offset >= uint64(s.size) || uint64(s.size)-r.Offset < relocWidth(f.Machine, r.Type) {
				return invalid(s.Name, "relocation at %#x outside the section (size %#x)", r.Offset, s.size)
			}
		}
	}
	for _, sym := range f.symbols {
		if strings.IndexByte(sym.Name, 0) >= 0 {
			return invalid(fmt.Sprintf("%q", sym.Name), "symbol name contains NUL")
		}
		if sym.Section != nil && sym.Section.file != f {
			return invalid(sym.Name, "symbol in a section of another file")
		}
	}
	return nil
}

// reserved names are the sections the writer adds itself.
var reserved = map[string]bool{".symtab": true, ".strtab": true, ".shstrtab": true}

// relocWidth is the number of bytes a relocation patches (at least 4 for the
// types this package is used with; unknown types are only checked for 1).
func relocWidth(m elf.Machine, typ uint32) uint64 {
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_64, elf.R_X86_64_PC64:
			return 8
		case elf.R_X86_64_16, elf.R_X86_64_PC16:
			return 2
		case elf.R_X86_64_8, elf.R_X86_64_PC8:
			return 1
		}
		return 4
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_ABS64, elf.R_AARCH64_PREL64:
			return 8
		case elf.R_AARCH64_ABS16, elf.R_AARCH64_PREL16:
			return 2
		}
		return 4
	}
	return 1
}
