package container

import (
	"io"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
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

// BundleHeads is a RecordsOptions.Enough for listings: it reports whether
// kept, the start of a decoded payload of size bytes, holds a binary
// bundle's header and the first 64 bytes of each entry (what a listing
// reads of entries that are images: their kind), or is no bundle, or a
// damaged one (the look then fails or reads past it, and the record is
// decoded whole).
func BundleHeads(kept []byte, size int64) bool {
	if len(kept) >= len(bundle.Magic) && !bundle.IsBinary(kept) {
		return true
	}
	pr := &ccob.PrefixReader{B: kept}
	es, err := bundle.ReadBinary(pr, size)
	if pr.Missed {
		return false
	}
	if err != nil {
		return true
	}
	need := int64(0)
	for _, e := range es {
		need = max(need, e.Offset+min(e.Size, 64))
	}
	return int64(len(kept)) >= need
}
