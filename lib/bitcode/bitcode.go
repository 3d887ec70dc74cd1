// Package bitcode reads the symbol table ("irsymtab") that LLVM stores in
// bitcode files, so that archives of bitcode members get the same archive
// symbol table LLVM 22's writeArchive gives them.
//
// LLVM's archive writer parses each bitcode member into IR and lists its
// symbols (object::IRObjectFile over a ModuleSymbolTable). Since LLVM 5 the
// bitcode writer also records that list, with the same order and flags, in
// a SYMTAB_BLOCK whose blob is llvm::irsymtab::storage and whose strings
// live in the STRTAB_BLOCK that follows it. This package reads that table
// instead of the IR: it walks the top-level blocks of the bitstream,
// skipping the module blocks by their length words, and decodes the blob.
//
// Files without a usable irsymtab (none was written, a format version other
// than 3 or LLVM 23's 4, or a table that does not cover every module, as after binary
// concatenation) make LLVM rebuild the table from the IR, which this
// package cannot do; they yield ErrNoSymtab. The producer string is not
// compared with LLVM 22's: symbol tables written by other LLVM releases
// list symbols by the same rules.
package bitcode

import (
	"bytes"
	"errors"
	"fmt"
)

// Magic numbers at the start of a bitcode file.
const (
	// RawMagic starts a bare bitstream: 'B', 'C', 0xC0DE.
	RawMagic = "BC\xC0\xDE"
	// WrapperMagic starts a wrapper header: 0x0B17C0DE, little-endian.
	WrapperMagic = "\xDE\xC0\x17\x0B"
)

var (
	// ErrNotBitcode is returned for input without a bitcode magic number.
	ErrNotBitcode = errors.New("bitcode: not a bitcode file")
	// ErrNoSymtab is returned (wrapped, with the reason) for valid bitcode
	// whose irsymtab is missing or unusable, where LLVM would rebuild the
	// table from the IR.
	ErrNoSymtab = errors.New("bitcode: no usable irsymtab")
	// ErrFormat matches every *FormatError.
	ErrFormat = errors.New("bitcode: malformed bitcode")
)

// FormatError reports malformed bitcode at a file offset.
type FormatError struct {
	Off int64  // file offset of the offending byte (the byte holding the bit)
	Msg string // what is wrong
	Val any    // the offending value, or nil
}

func (e *FormatError) Error() string {
	if e.Val == nil {
		return fmt.Sprintf("bitcode: %s at offset 0x%x", e.Msg, e.Off)
	}
	return fmt.Sprintf("bitcode: %s %v at offset 0x%x", e.Msg, e.Val, e.Off)
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

// IsBitcode reports whether b starts with either bitcode magic number, the
// test llvm::identify_magic makes.
func IsBitcode(b []byte) bool {
	return bytes.HasPrefix(b, []byte(RawMagic)) || bytes.HasPrefix(b, []byte(WrapperMagic))
}

func noSymtab(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNoSymtab, fmt.Sprintf(format, args...))
}
