// Package coffobj reads the section table of COFF objects (regular and
// bigobj), as far as the offload tools need: which sections there are,
// their names (long names through the string table included), and where
// their contents lie in the file.
//
// It checks what LLVM 22's COFFObjectFile checks before it hands a
// section's name or contents over, and refuses what it refuses: the
// header and section table when the file is opened, a section's name and
// contents only when they are asked for. Errors that LLVM words with a
// message of its own ("invalid section name", "string table empty") carry
// the same message.
//
// Input is treated as hostile: every size and offset is checked against
// the input's size before anything is read or allocated.
package coffobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/strtab"
)

// Sizes of the on-disk structures.
const (
	HeaderSize       = 20 // IMAGE_FILE_HEADER
	BigObjHeaderSize = 56 // ANON_OBJECT_HEADER_BIGOBJ
	SectionSize      = 40 // IMAGE_SECTION_HEADER
	SymbolSize       = 18
	BigObjSymbolSize = 20
)

var (
	// BigObjClassID is the class ID (UUID field) of a bigobj header.
	BigObjClassID = []byte{0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8}
	// winResMagic starts a Windows resource file, which also begins with
	// two zero bytes.
	winResMagic = []byte{0, 0, 0, 0, 0x20, 0, 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0}
)

var (
	// ErrFormat matches every *FormatError.
	ErrFormat = errors.New("coffobj: malformed COFF object")
	// ErrTruncated matches the *FormatErrors of structures that run past
	// the end of the file.
	ErrTruncated = errors.New("coffobj: COFF object truncated")
)

// FormatError is a defect in a COFF object.
type FormatError struct {
	File string // the name given to Open
	Off  int64  // offset of the structure at fault, in the reader given to Open
	// Msg says what is wrong: "<structure> past end of file" for
	// truncations, else LLVM's own words.
	Msg       string
	Truncated bool // a structure runs past the end of the file
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return "COFF object: " + e.Msg
	}
	return e.File + ": COFF object: " + e.Msg
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// Is makes errors.Is(err, ErrFormat) true for every FormatError, and
// errors.Is(err, ErrTruncated) for truncations.
func (e *FormatError) Is(target error) bool {
	return target == ErrFormat || target == ErrTruncated && e.Truncated
}

// IsObject reports whether b, the first 28 bytes of an input or all of it
// when shorter, starts what LLVM 22's identify_magic calls a COFF object:
// a machine type it knows in the first two bytes, the unknown machine (two
// zero bytes that start no resource file), or a bigobj header.
func IsObject(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch b[0] {
	case 0x00:
		if b[1] == 0 && b[2] == 0xff && b[3] == 0xff { // bigobj, or an import library
			return len(b) >= 28 && bytes.Equal(b[12:28], BigObjClassID)
		}
		if len(b) >= len(winResMagic) && bytes.Equal(b[:len(winResMagic)], winResMagic) {
			return false
		}
		return b[1] == 0
	case 0xf0, 0x83, 0x84, 0x66, 0x50, 0x4c, 0xc4:
		return b[1] == 0x01 || b[1] == 0x02
	case 0x90, 0x68:
		return b[1] == 0x02
	case 0x64:
		return b[1] == 0x86 || b[1] == 0xaa
	case 0x41, 0x4e:
		return b[1] == 0xa6
	}
	return false
}

// IsObjectWithMachine is IsObject without the unknown machine: two zero
// bytes start much besides COFF objects, so callers that look at payloads
// of any kind (not inputs LLVM would read as objects) use this.
func IsObjectWithMachine(b []byte) bool {
	return IsObject(b) && (b[0] != 0 || b[1] != 0 || b[2] == 0xff)
}

// MachineName names the machine types objects for Windows targets have.
func MachineName(m uint16) string {
	switch m {
	case 0:
		return "unknown machine"
	case 0x14c:
		return "i386"
	case 0x8664:
		return "x86-64"
	case 0x1c4:
		return "ARMNT"
	case 0xaa64:
		return "ARM64"
	case 0xa641:
		return "ARM64EC"
	case 0xa64e:
		return "ARM64X"
	}
	return fmt.Sprintf("machine 0x%04x", m)
}

// Section is one entry of the section table.
type Section struct {
	Index int    // position in the section table, from 0
	Name  string // resolved through the string table where it is long
	// Offset and Size are PointerToRawData and SizeOfRawData: where the
	// contents lie in the file. Offset 0 means none there (such as .bss).
	Offset, Size    int64
	Characteristics uint32
	entry           int64 // file offset of the table entry
}

// File is a COFF object whose header and section table Open has read.
// An import library (which has no section table) reads as an object of no
// sections.
type File struct {
	Machine     uint16
	BigObj      bool
	NumSections int

	r      io.ReaderAt
	size   int64
	name   string
	table  []byte // the raw section table
	tabOff int64
	strtab *strtab.Table // nil where LLVM would find none
}

// Open reads the header and section table of the COFF object in the size
// bytes of r; name is the file's name for errors. It does not check that
// r starts like a COFF object: call IsObject first.
func Open(r io.ReaderAt, size int64, name string) (*File, error) {
	f := &File{r: r, size: size, name: name}
	le := binary.LittleEndian
	h, err := f.read(0, HeaderSize, 0, "header")
	if err != nil {
		return nil, err
	}
	f.Machine = le.Uint16(h[0:])
	sections := int64(le.Uint16(h[2:]))
	symPtr, symCount := le.Uint32(h[8:]), le.Uint32(h[12:])
	// The section table follows the optional header, objects included.
	table, symSize := int64(HeaderSize)+int64(le.Uint16(h[16:])), uint32(SymbolSize)
	if sections == 0xffff {
		// A bigobj header, or else an import library, which has no sections.
		if le.Uint16(h[0:]) != 0 || size < BigObjHeaderSize {
			return f, nil
		}
		big, err := f.read(0, BigObjHeaderSize, 0, "header")
		if err != nil {
			return nil, err
		}
		if le.Uint16(big[4:]) < 2 || !bytes.Equal(big[12:28], BigObjClassID) {
			return f, nil
		}
		f.BigObj, f.Machine = true, le.Uint16(big[6:])
		sections = int64(le.Uint32(big[44:]))
		symPtr, symCount = le.Uint32(big[48:]), le.Uint32(big[52:])
		table, symSize = BigObjHeaderSize, BigObjSymbolSize
	}
	// fits bounds the table by the file before it is allocated.
	if f.table, err = f.read(table, sections*SectionSize, table, "section table"); err != nil {
		return nil, err
	}
	f.NumSections, f.tabOff = int(sections), table
	// The string table follows the symbols. As LLVM 22 reads it, the symbol
	// table only has to start within the file, the string table's offset
	// is counted in 32 bits, and a string table that is not there or does
	// not end in a NUL is no string table (no error, until a section name
	// needs it).
	if symPtr != 0 && int64(symPtr) <= size {
		f.strtab = f.stringTable(int64(symPtr + symCount*symSize))
	}
	return f, nil
}

// fits reports whether n bytes at at lie within the file.
func (f *File) fits(at, n int64) bool { return at >= 0 && n >= 0 && at <= f.size && n <= f.size-at }

func (f *File) eof(off int64, what string) error {
	return &FormatError{File: f.name, Off: off, Msg: what + " past end of file", Truncated: true}
}

// read returns n bytes at at, or a truncation error about what (found at
// off) if they are not all in the file.
func (f *File) read(at, n, off int64, what string) ([]byte, error) {
	if !f.fits(at, n) {
		return nil, f.eof(off, what)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, at); err != nil && !(err == io.EOF && n == 0) {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	return b, nil
}

// stringTable returns the string table at at, or nil where LLVM would
// find none.
func (f *File) stringTable(at int64) *strtab.Table {
	head, err := f.read(at, 4, at, "string table")
	if err != nil {
		return nil
	}
	b, err := f.read(at, int64(binary.LittleEndian.Uint32(head)), at, "string table")
	if err != nil || len(b) < 4 || len(b) > 4 && b[len(b)-1] != 0 {
		return nil
	}
	return strtab.NewTable(b, "\x00")
}

// Section returns entry i (from 0) of the section table, its name
// resolved. It fails on names LLVM cannot resolve.
func (f *File) Section(i int) (Section, error) {
	if i < 0 || i >= f.NumSections {
		return Section{}, fmt.Errorf("%s: COFF object: no section %d", f.name, i)
	}
	le := binary.LittleEndian
	e := f.table[i*SectionSize : (i+1)*SectionSize]
	s := Section{
		Index: i, Size: int64(le.Uint32(e[16:])), Offset: int64(le.Uint32(e[20:])),
		Characteristics: le.Uint32(e[36:]), entry: f.tabOff + int64(i)*SectionSize,
	}
	var err error
	s.Name, err = f.sectionName(e[:8], s.entry)
	return s, err
}

// Sections returns the whole section table, failing on the first name
// LLVM cannot resolve.
func (f *File) Sections() ([]Section, error) {
	out := make([]Section, 0, f.NumSections)
	for i := range f.NumSections {
		s, err := f.Section(i)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// SectionReader returns a reader over a section's contents: empty for a
// section with none in the file, an error for contents past its end.
func (f *File) SectionReader(s Section) (*io.SectionReader, error) {
	if s.Offset == 0 {
		return io.NewSectionReader(f.r, 0, 0), nil
	}
	if !f.fits(s.Offset, s.Size) {
		return nil, f.eof(s.entry, "section "+s.Name)
	}
	return io.NewSectionReader(f.r, s.Offset, s.Size), nil
}

// sectionName resolves a section's name: up to 8 bytes inline, or
// "/decimal" or "//base64" giving an offset into the string table.
func (f *File) sectionName(field []byte, entry int64) (string, error) {
	s, _, _ := strings.Cut(string(field), "\x00")
	if !strings.HasPrefix(s, "/") {
		return s, nil
	}
	var at uint64
	var ok bool
	if rest, long := strings.CutPrefix(s, "//"); long {
		at, ok = decodeBase64Offset(rest)
	} else {
		var err error
		at, err = strconv.ParseUint(s[1:], 10, 32)
		ok = err == nil
	}
	if !ok {
		return "", &FormatError{File: f.name, Off: entry, Msg: "invalid section name"}
	}
	if f.strtab == nil || f.strtab.Len() <= 4 {
		return "", &FormatError{File: f.name, Off: entry, Msg: "string table empty"}
	}
	if at >= uint64(f.strtab.Len()) {
		return "", f.eof(entry, "section name")
	}
	name, _ := f.strtab.At(int(at)) // the table ends in a NUL
	return name, nil
}

// decodeBase64Offset decodes the "//" form of a long section name: up to
// six base64 digits, most significant first, without padding.
func decodeBase64Offset(s string) (uint64, bool) {
	if len(s) > 6 {
		return 0, false
	}
	var v uint64
	for _, c := range []byte(s) {
		var d byte
		switch {
		case c >= 'A' && c <= 'Z':
			d = c - 'A'
		case c >= 'a' && c <= 'z':
			d = c - 'a' + 26
		case c >= '0' && c <= '9':
			d = c - '0' + 52
		case c == '+':
			d = 62
		case c == '/':
			d = 63
		default:
			return 0, false
		}
		v = v*64 + uint64(d)
	}
	return v, v <= math.MaxUint32
}
