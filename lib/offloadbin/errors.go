package offloadbin

import (
	"errors"
	"fmt"
)

var (
	// ErrFormat marks malformed data: a bad magic, version or field value
	// (LLVM reports these as "Invalid data was encountered while parsing
	// the file").
	ErrFormat = errors.New("offloadbin: invalid data")
	// ErrTruncated marks an offset or size that points past the end of the
	// binary or its input (LLVM: "The end of the file was unexpectedly
	// encountered").
	ErrTruncated = errors.New("offloadbin: unexpected end of data")
	// ErrTooLarge marks data that exceeds a configured limit, such as the
	// inflated size of a compressed binary.
	ErrTooLarge = errors.New("offloadbin: size exceeds limit")
	// ErrCompressed marks a compressed (version 3) binary that the caller
	// asked not to inflate (RefuseCompressed).
	ErrCompressed = errors.New("offloadbin: compressed binary refused")
)

// FormatError describes a defect in an OffloadBinary: what was wrong, the
// offending value (if any) and the absolute offset of the field. Err is one of
// the sentinel errors above, so callers can test with errors.Is.
type FormatError struct {
	Off int64
	Msg string
	Val any
	Err error
}

func (e *FormatError) Error() string {
	s := "offloadbin: " + e.Msg
	if e.Val != nil {
		s += fmt.Sprintf(" (%#x)", e.Val)
	}
	return s + fmt.Sprintf(" at offset %#x", e.Off)
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int64, msg string, val any) error {
	return &FormatError{Off: off, Msg: msg, Val: val, Err: ErrFormat}
}

func truncErr(off int64, msg string, val any) error {
	return &FormatError{Off: off, Msg: msg, Val: val, Err: ErrTruncated}
}
