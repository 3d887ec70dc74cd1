package packager

import (
	"errors"
	"io"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
)

// SpoolStdin copies standard input (r), which LLVM's packager, its
// extraction and llvm-offload-wrapper read whole into memory, into an
// unlinked temporary file in the default temporary directory instead, so
// that memory does not grow with it: at most budget.DefaultLimit bytes,
// the most these commands inflate from one input, so that a stream
// without end (a pipe from /dev/zero) is refused with a
// *container.SpoolError rather than filling the disk. The caller closes
// the Source.
func SpoolStdin(r io.Reader) (*container.Source, error) {
	src, err := container.Spool("-", r, "", budget.DefaultLimit)
	if se := (*container.SpoolError)(nil); errors.As(err, &se) {
		se.Hint = "these commands have no option to raise it; give the input as a file"
	}
	return src, err
}
