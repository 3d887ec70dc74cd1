package bundle

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by readers are *FormatError values that
// wrap one of these, so callers branch with errors.Is.
var (
	// ErrNotBundle means the input does not start with Magic (binary) or
	// holds no start marker (text). LLVM then treats the input as a plain
	// host file.
	ErrNotBundle = errors.New("bundle: not an offload bundle")
	// ErrTruncated means the input ends inside a header, marker or payload.
	ErrTruncated = errors.New("bundle: truncated")
	// ErrBadEntry means an entry's fields are inconsistent with the input.
	ErrBadEntry = errors.New("bundle: bad entry")
	// ErrDuplicateID means two entries carry the same ID.
	ErrDuplicateID = errors.New("bundle: duplicate entry id")
	// ErrBadID means an ID cannot be stored (empty, too long, or holding a
	// newline in a text bundle).
	ErrBadID = errors.New("bundle: bad entry id")
	// ErrBadAlign means an alignment below 1 was requested. LLVM 22 crashes
	// (SIGFPE) on -bundle-align=0.
	ErrBadAlign = errors.New("bundle: alignment must be at least 1")
	// ErrSourceSize means a payload source did not hold exactly the
	// announced number of bytes.
	ErrSourceSize = errors.New("bundle: payload source size mismatch")
	// ErrMarkerInPayload means a text payload contains a bundle marker, so
	// the written bundle could not be read back.
	ErrMarkerInPayload = errors.New("bundle: payload contains a bundle marker")
	// ErrTooLarge means offsets or sizes overflow int64.
	ErrTooLarge = errors.New("bundle: size overflows int64")
)

// MaxIDLength bounds the length of an entry ID accepted by readers and
// writers. Real IDs are well under 100 bytes; the bound keeps a hostile
// length field from driving allocations.
const MaxIDLength = 1 << 16

// FormatError reports malformed input: what was wrong (Msg), where (Offset,
// from the start of the bundle) and which sentinel applies (Err).
type FormatError struct {
	Off int64
	Msg string
	Err error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("bundle: %s at offset %#x", e.Msg, e.Off)
}

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// Unwrap returns the sentinel, for errors.Is.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int64, sentinel error, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}
