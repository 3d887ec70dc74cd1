package container

import (
	"io"

	"github.com/rules-offload/rules_offload/lib/bundle"
)

// BinaryBundle walks the entries of a binary offload bundle (a Walker),
// named by their entry IDs. The whole entry table is read before the first
// entry is visited, so a malformed table visits none.
func BinaryBundle(r io.ReaderAt, size int64, visit Visit) error {
	es, err := bundle.ReadBinary(r, size)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := visit(piece(r, Entry, e.ID, e.Offset, e.Size)); err != nil {
			return err
		}
	}
	return nil
}
