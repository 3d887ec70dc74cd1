package container

import (
	"bytes"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/bundle"
)

// TextTooLargeError is a text bundle larger than the caller reads: text
// bundles hold sources and are read into memory whole.
type TextTooLargeError struct{ Size, Max int64 }

func (e *TextTooLargeError) Error() string {
	return fmt.Sprintf("text bundle of %d bytes is larger than the %d bytes supported", e.Size, e.Max)
}

// TextBundle walks the entries of a text bundle whose comment marker is
// comment (see Recognise), at most max bytes long. Its entries are Entry
// pieces read into memory: Offset is -1 and Data reads the entry's text.
func TextBundle(r io.ReaderAt, size int64, comment string, max int64, visit Visit) error {
	if size > max {
		return &TextTooLargeError{Size: size, Max: max}
	}
	es, err := bundle.ReadText(io.NewSectionReader(r, 0, size), comment)
	if err != nil {
		return err
	}
	for _, e := range es {
		n := int64(len(e.Data))
		p := Piece{Kind: Entry, Name: e.ID, Offset: -1, Size: n, Data: io.NewSectionReader(bytes.NewReader(e.Data), 0, n)}
		if err := visit(p); err != nil {
			return err
		}
	}
	return nil
}
