// Package exactio copies and reads byte ranges that must be exactly as long
// as declared. It is the one copy of these checks for every format package
// (ar, elfobj, bundle, ccob) and for lib/container above them; it imports
// nothing of the project, so any package may use it.
package exactio

import (
	"errors"
	"fmt"
	"io"
)

// SizeError says a source did not hold the number of bytes declared for
// it. Callers wrap it with what the source was (a member, a section).
type SizeError struct {
	Got, Want int64 // Got is meaningful only when !Longer
	Longer    bool  // the source held more than Want bytes
}

func (e *SizeError) Error() string {
	if e.Longer {
		return fmt.Sprintf("data longer than %d bytes", e.Want)
	}
	return fmt.Sprintf("data ended after %d of %d bytes", e.Got, e.Want)
}

// Held says what the source held against what was declared, in the
// words of the bundle and CCOB writers ("holds 2 bytes, want 3").
func (e *SizeError) Held() string {
	if e.Longer {
		return fmt.Sprintf("holds more than %d bytes", e.Want)
	}
	return fmt.Sprintf("holds %d bytes, want %d", e.Got, e.Want)
}

// Copy copies exactly n bytes from src to w and checks that src has no
// more, reading at most one byte past them. A source of another length is
// a *SizeError; errors of src and w are returned as they are.
func Copy(w io.Writer, src io.Reader, n int64) error {
	got, err := io.CopyN(w, src, n)
	if err == io.EOF {
		return &SizeError{Got: got, Want: n}
	}
	if err != nil {
		return err
	}
	var one [1]byte
	k, err := io.ReadFull(src, one[:])
	if k > 0 {
		return &SizeError{Want: n, Longer: true}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// ReadAt fills b from off, treating a short read as io.ErrUnexpectedEOF
// (io.ReaderAt may return io.EOF with a full buffer, or nil with a short
// one at the end of a file).
func ReadAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
