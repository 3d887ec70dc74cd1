package packager

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// COFF objects carry offload binaries in sections whose names start with
// ".llvm.offloading" (COFF has no section types to mark them); clang
// -fembed-offload-object writes one for Windows targets, and LLVM 22's
// extractOffloadBinaries reads it. What follows reads what LLVM's
// COFFObjectFile checks before it hands a section's contents over, and
// refuses what it refuses with the same words.

// coffSectionPrefix starts the names of the sections searched.
const coffSectionPrefix = ".llvm.offloading"

var (
	// bigObjMagic is the class ID of a bigobj header (its UUID field).
	bigObjMagic = []byte{0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8}
	// winResMagic starts a Windows resource file, which also begins with
	// two zero bytes.
	winResMagic = []byte{0, 0, 0, 0, 0x20, 0, 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0}
)

const (
	coffHeaderSize   = 20
	bigObjHeaderSize = 56
	coffSectionSize  = 40
	coffSymbolSize   = 18
	bigObjSymbolSize = 20
)

// isCOFFObject matches what LLVM 22's identify_magic calls a COFF object:
// one of the machine types it knows in the first two bytes, the unknown
// machine (two zero bytes that start no resource file), or a bigobj
// header. b holds at least the first 28 bytes of the input, or all of it.
func isCOFFObject(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch b[0] {
	case 0x00:
		if b[1] == 0 && b[2] == 0xff && b[3] == 0xff { // bigobj, or an import library
			return len(b) >= 28 && bytes.Equal(b[12:28], bigObjMagic)
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

// coffError is a defect in a COFF object that LLVM reports with a message
// of its own; it is invalid data (offloadbin.ErrFormat) otherwise.
type coffError struct{ name, msg string }

func (e *coffError) Error() string       { return e.name + ": COFF object: " + e.msg }
func (e *coffError) Unwrap() error       { return offloadbin.ErrFormat }
func (e *coffError) LLVMMessage() string { return e.msg }
func coffEOF(name, what string) error {
	return fmt.Errorf("%s: COFF object: %s past end of file: %w", name, what, offloadbin.ErrTruncated)
}

// scanCOFF reads the offload binaries of a COFF object in r[off:off+size].
func scanCOFF(r io.ReaderAt, off, size int64, name string, opts []offloadbin.Option) ([]Found, error) {
	le := binary.LittleEndian
	fits := func(at, n int64) bool { return at >= 0 && n >= 0 && at <= size && n <= size-at }
	read := func(at, n int64, what string) ([]byte, error) {
		if !fits(at, n) {
			return nil, coffEOF(name, what)
		}
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off+at); err != nil && !(err == io.EOF && n == 0) {
			return nil, err
		}
		return b, nil
	}
	h, err := read(0, coffHeaderSize, "header")
	if err != nil {
		return nil, err
	}
	sections := int64(le.Uint16(h[2:]))
	symPtr, symCount := le.Uint32(h[8:]), le.Uint32(h[12:])
	// The section table follows the optional header, objects included.
	table, symSize := int64(coffHeaderSize)+int64(le.Uint16(h[16:])), uint32(coffSymbolSize)
	if sections == 0xffff {
		// A bigobj header, or else an import library, which has no sections.
		if le.Uint16(h[0:]) != 0 || size < bigObjHeaderSize {
			return nil, nil
		}
		big, err := read(0, bigObjHeaderSize, "header")
		if err != nil {
			return nil, err
		}
		if le.Uint16(big[4:]) < 2 || !bytes.Equal(big[12:28], bigObjMagic) {
			return nil, nil
		}
		sections = int64(le.Uint32(big[44:]))
		symPtr, symCount = le.Uint32(big[48:]), le.Uint32(big[52:])
		table, symSize = bigObjHeaderSize, bigObjSymbolSize
	}
	secs, err := read(table, sections*coffSectionSize, "section table")
	if err != nil {
		return nil, err
	}
	// The string table follows the symbols. As LLVM 22 reads it, the symbol
	// table only has to start within the file, the string table's offset
	// is counted in 32 bits, and a string table that is not there or does
	// not end in a NUL is no string table (no error, until a section name
	// needs it).
	var strtab []byte
	if symPtr != 0 && int64(symPtr) <= size {
		strtab = coffStringTable(read, int64(symPtr+symCount*symSize))
	}
	var out []Found
	for i := int64(0); i < sections; i++ {
		s := secs[i*coffSectionSize : (i+1)*coffSectionSize]
		secName, err := coffSectionName(s[:8], strtab, name)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(secName, coffSectionPrefix) {
			continue
		}
		dataSize, dataPtr := int64(le.Uint32(s[16:])), int64(le.Uint32(s[20:]))
		if dataPtr == 0 { // no contents in the file
			continue
		}
		if dataPtr > size || dataSize > size-dataPtr {
			return nil, coffEOF(name, "section "+secName)
		}
		found, err := scanBinaries(r, off+dataPtr, dataSize, name, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// coffStringTable returns the string table at at, with its size field, or
// nil where LLVM would find none.
func coffStringTable(read func(at, n int64, what string) ([]byte, error), at int64) []byte {
	head, err := read(at, 4, "string table")
	if err != nil {
		return nil
	}
	b, err := read(at, int64(binary.LittleEndian.Uint32(head)), "string table")
	if err != nil || len(b) < 4 || len(b) > 4 && b[len(b)-1] != 0 {
		return nil
	}
	return b
}

// coffSectionName resolves a section's name: up to 8 bytes inline, or
// "/decimal" or "//base64" giving an offset into the string table.
func coffSectionName(field, strtab []byte, name string) (string, error) {
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
		return "", &coffError{name, "invalid section name"}
	}
	if len(strtab) <= 4 {
		return "", &coffError{name, "string table empty"}
	}
	if at >= uint64(len(strtab)) {
		return "", coffEOF(name, "section name")
	}
	str, _, _ := strings.Cut(string(strtab[at:]), "\x00")
	return str, nil
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
