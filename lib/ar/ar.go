// Package ar reads and writes Unix ar archives as LLVM 22 does.
//
// The Reader accepts the GNU variant (symbol tables "/" and "/SYM64/", the
// long-name table "//", names "name/" and "/123") and the BSD variant
// ("#1/len" names, "__.SYMDEF" tables) over an io.ReaderAt, skipping symbol
// tables and resolving names. Thin archives are rejected.
//
// WriteArchive writes the deterministic GNU format of LLVM's
// writeArchive(K_GNU, Deterministic=true, Thin=false), the format that
// `llvm-ar rcD` and `clang-offload-bundler -unbundle -type=a` produce.
package ar

import (
	"errors"
	"fmt"
)

// Magic strings at the start of an archive.
const (
	Magic     = "!<arch>\n"
	ThinMagic = "!<thin>\n"
)

// headerSize is the size of a member header.
const headerSize = 60

// MaxMemberSize is the largest member size the 10-digit size field holds.
const MaxMemberSize = 9999999999

var (
	// ErrTooSmall is returned for inputs shorter than the magic. Its text is
	// LLVM's, so drop-in front ends can print it unchanged.
	ErrTooSmall = errors.New("file too small to be an archive")
	// ErrNotArchive is returned when the input does not start with the magic.
	ErrNotArchive = errors.New("ar: not an archive (bad magic)")
	// ErrThin is returned for thin archives, whose members live in other files.
	ErrThin = errors.New("ar: thin archives are not supported")
	// ErrInsecurePath is returned by Next together with a member whose name
	// is not a local path (filepath.IsLocal); the caller decides.
	ErrInsecurePath = errors.New("ar: insecure file path")
	// ErrFormat matches every *FormatError.
	ErrFormat = errors.New("ar: malformed archive")
)

// FormatError reports malformed archive data at an offset.
type FormatError struct {
	Off int64  // offset of the offending header or field
	Msg string // what is wrong
	Val any    // the offending value, or nil
}

func (e *FormatError) Error() string {
	if e.Val == nil {
		return fmt.Sprintf("ar: %s at offset 0x%x", e.Msg, e.Off)
	}
	return fmt.Sprintf("ar: %s %v at offset 0x%x", e.Msg, e.Val, e.Off)
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }
