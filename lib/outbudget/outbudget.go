// Package outbudget bounds what a command writes from its inputs: the
// bytes of the images it copies out and the files it makes. Inputs can
// point many entries or sections at the same bytes, or at overlapping
// ones, so a few megabytes of input could otherwise make gigabytes of
// output. Copies that share the bytes of one payload (hard links) cost a
// file, not bytes.
//
// By default an input may give out no more bytes than it holds: its size
// plus what was decompressed from it (each byte of a real container
// belongs to one image), and MaxFiles files. A byte limit given instead
// replaces that.
package outbudget

import (
	"errors"
	"fmt"
)

// DefaultMaxFiles is the default limit on files written.
const DefaultMaxFiles = 100000

// slack is added to the default byte allowance, for the headers of what
// a conversion writes.
const slack = 1 << 20

// ErrExceeded is wrapped by the errors of a refused output.
var ErrExceeded = errors.New("output budget exceeded")

// Budget counts output bytes and files against their limits.
type Budget struct {
	// MaxBytes, if not 0, is the limit on bytes; else the limit is what
	// Held returns plus 1 MiB.
	MaxBytes uint64
	// MaxFiles, if not 0, is the limit on files; else DefaultMaxFiles.
	MaxFiles uint64
	// Held returns the bytes the inputs hold so far: their sizes plus
	// what was decompressed from them.
	Held func() uint64
	// Hint says how to raise the limits, such as "raise the limits with
	// --max-output-size and --max-output-files".
	Hint         string
	bytes, files uint64
}

// Charge counts one more file of n bytes (0 for a hard link), or says why
// it may not be written.
func (b *Budget) Charge(n uint64) error {
	if b == nil {
		return nil
	}
	maxFiles := b.MaxFiles
	if maxFiles == 0 {
		maxFiles = DefaultMaxFiles
	}
	if b.files >= maxFiles {
		return b.exceeded(fmt.Sprintf("more than %d files", maxFiles))
	}
	limit, what := b.MaxBytes, ""
	if limit == 0 {
		limit = slack
		if b.Held != nil {
			limit += b.Held()
		}
		what = " (what the inputs hold, plus 1 MiB)"
	}
	if n > limit || b.bytes > limit-n {
		return b.exceeded(fmt.Sprintf("more than %d bytes%s: %d written, %d more asked", limit, what, b.bytes, n))
	}
	b.bytes += n
	b.files++
	return nil
}

func (b *Budget) exceeded(what string) error {
	msg := "output would be " + what
	if b.Hint != "" {
		msg += "; " + b.Hint
	}
	return fmt.Errorf("%w: %s", ErrExceeded, msg)
}
