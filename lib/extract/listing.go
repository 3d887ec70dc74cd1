package extract

import (
	"io"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// maxListPrefix bounds what a listing decodes of one compressed record
// before it gives up and decodes the record whole.
const maxListPrefix = 16 << 20

// listRecord lists the images of the compressed record at the start of r
// (size bytes) while decoding only what listing them reads: a bundle's
// header and the first bytes of each entry, which name its kind. A
// record declaring 4 GiB whose bundle header is in its first bytes costs
// those bytes, not 4 GiB of temporary data.
//
// It runs only for walks whose callback never reads the images' bytes
// (Options.SizesOnly), and only where it gives what the whole record
// would: the walk goes over the decoded prefix with a budget of its own,
// and if it reads past the prefix, or fails at all, ok is false, nothing
// was handed on, and the caller decodes the record whole. The hash of the
// payload is not compared (LLVM 22 never compares it) and a damaged
// stream after what was decoded goes unnoticed: listing reads headers.
func (w *Walker) listRecord(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) (span int64, ok bool, err error) {
	if !w.opt.SizesOnly {
		return 0, false, nil
	}
	h, err := ccob.ParseHeader(headOf(r, size, ccob.HeaderSizeV3))
	if err != nil {
		return 0, false, nil
	}
	saved := w.budget
	w.budget = saved.Fork()
	keep := &ccob.PrefixWriter{Max: maxListPrefix, Enough: func(kept []byte) bool { return enoughToList(kept, int64(h.UncompressedSize)) }}
	_, span, _, err = ccob.DecompressPrefix(keep, r, size, ccob.ReaderOptions{MaxUncompressedSize: w.budget.Limit(), Budget: w.budget})
	var ims []*Image
	pr := &ccob.PrefixReader{B: keep.Kept}
	if err == nil {
		err = w.any(pr, int64(h.UncompressedSize), where, depth+1, func(im *Image) error {
			ims = append(ims, im)
			return nil
		})
	}
	if err != nil || pr.Missed {
		w.budget = saved
		return 0, false, nil
	}
	for _, im := range ims {
		if err := fn(im); err != nil {
			return 0, true, err
		}
	}
	return span, true, nil
}

// enoughToList reports whether kept, the start of a decoded payload of
// size bytes, holds a binary bundle's header and the first 64 bytes of
// each entry (what the walk reads of entries that are images), or is no
// bundle, or a damaged one (the walk then fails or reads past it, and the
// record is decoded whole).
func enoughToList(kept []byte, size int64) bool {
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
