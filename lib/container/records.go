package container

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// RecordError is a compressed record that could not be decoded (or whose
// hash did not match), at Offset of its input.
type RecordError struct {
	Offset int64
	Err    error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("compressed bundle at offset %d: %v", e.Offset, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// TrailingError is data after a compressed record that is neither zero
// padding nor another record (LLVM stores CCOBs back to back, as in
// .hip_fatbin sections, padded with zeros).
type TrailingError struct{ Offset int64 }

func (e *TrailingError) Error() string {
	return fmt.Sprintf("unexpected data after the compressed bundle at offset %d", e.Offset)
}

// NextRecord returns where the compressed record after the one that ends
// at off starts in the size bytes of r, past zero padding: size when none
// follows, a *TrailingError for data that is not a record. On an error it
// returns where it stopped. Every operation that reads a sequence of
// CCOBs steps through it with this, so they agree on what may follow one.
func NextRecord(r io.ReaderAt, off, size int64) (int64, error) {
	next, err := ccob.SkipPadding(r, off, size)
	if err != nil || next >= size {
		return next, err
	}
	var head [8]byte
	n, _ := r.ReadAt(head[:], next)
	if !ccob.IsCompressed(head[:n]) {
		return next, &TrailingError{Offset: next}
	}
	return next, nil
}
