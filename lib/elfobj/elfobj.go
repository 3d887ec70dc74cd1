// Package elfobj reads and edits existing ELF files without objcopy.
//
// It covers what the offload tools need: listing sections, appending
// sections (the bundler's __CLANG_OFFLOAD_BUNDLE__ sections, the packager's
// .llvm.offloading section) and removing them again. Both 32- and 64-bit
// classes and both byte orders are supported. Relocatable objects are fully
// re-laid out; executables and shared objects keep their loadable image
// byte for byte and only non-allocated sections after it may change.
//
// Section contents are streamed; only small tables (section headers,
// section names, group member lists) are held in memory, and symbol tables
// are rewritten in chunks.
package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Section types and flags that debug/elf does not name.
const (
	// SHT_LLVM_OFFLOADING marks an embedded OffloadBinary (.llvm.offloading).
	SHT_LLVM_OFFLOADING uint32 = 0x6fff4c0b
	// SHT_CREL is LLVM's compact relocation section type.
	SHT_CREL uint32 = 0x40000014
	// SHF_EXCLUDE asks the linker to drop the section.
	SHF_EXCLUDE uint64 = 0x80000000
)

// Section-index and symbol special values.
const (
	shnUndef     = 0
	shnLoReserve = 0xff00
	shnXIndex    = 0xffff
	pnXNum       = 0xffff
)

var (
	// ErrNotELF is returned by Open for input without the ELF magic.
	ErrNotELF = errors.New("elfobj: not an ELF file")
	// ErrUnsupported is wrapped by errors for valid input that an edit
	// cannot handle safely (for example removing an allocated section of an
	// executable, or removing a section that a kept symbol is defined in).
	ErrUnsupported = errors.New("elfobj: unsupported edit")
	// ErrFormat matches every *FormatError.
	ErrFormat = errors.New("elfobj: malformed ELF")
)

// FormatError reports malformed ELF data at an offset.
type FormatError struct {
	Off int64  // file offset of the offending structure
	Msg string // what is wrong
	Val any    // the offending value, or nil
}

func (e *FormatError) Error() string {
	if e.Val == nil {
		return fmt.Sprintf("elfobj: %s at offset 0x%x", e.Msg, e.Off)
	}
	return fmt.Sprintf("elfobj: %s %v at offset 0x%x", e.Msg, e.Val, e.Off)
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Section is one section header, decoded.
type Section struct {
	Index   int
	Name    string
	Type    uint32
	Flags   uint64
	Addr    uint64
	Offset  uint64
	Size    uint64
	Align   uint64
	Link    uint32
	Info    uint32
	EntSize uint64

	nameOff uint32
}

// Prog is one program header, decoded.
type Prog struct {
	Type   uint32
	Flags  uint32
	Offset uint64
	Vaddr  uint64
	Paddr  uint64
	Filesz uint64
	Memsz  uint64
	Align  uint64
}

// File is an ELF file whose headers have been read by Open.
type File struct {
	Class      elf.Class
	ByteOrder  binary.ByteOrder
	OSABI      elf.OSABI
	Type       elf.Type
	Machine    elf.Machine
	Flags      uint32 // e_flags
	Entry      uint64
	Sections   []Section
	Progs      []Prog
	ShStrIndex int // section holding the section names, 0 if none

	r      io.ReaderAt
	mem    []byte // r's contents, when the caller has them in memory
	size   int64
	c      codec
	ehdr   []byte // raw ELF header
	phoff  uint64
	shoff  uint64
	sec0   Section // raw section 0, which carries extended counts
	hasSHT bool
}

// IsELF reports whether b starts with the ELF magic.
func IsELF(b []byte) bool {
	return len(b) >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'
}

// SectionReader returns a reader for the section's bytes; SHT_NOBITS (and
// SHT_NULL) sections read as empty.
func (f *File) SectionReader(s Section) *io.SectionReader {
	if !hasBytes(s) {
		return io.NewSectionReader(f.r, 0, 0)
	}
	return io.NewSectionReader(f.r, int64(s.Offset), int64(s.Size))
}

// SectionByName returns the first section with the given name.
func (f *File) SectionByName(name string) (Section, bool) {
	for _, s := range f.Sections {
		if s.Name == name && s.Index != 0 {
			return s, true
		}
	}
	return Section{}, false
}

// SectionsByType returns the sections of type t in index order.
func (f *File) SectionsByType(t uint32) []Section {
	var out []Section
	for _, s := range f.Sections {
		if s.Type == t && s.Index != 0 {
			out = append(out, s)
		}
	}
	return out
}
