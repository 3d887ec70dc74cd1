package bundler

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

// maxListPrefix bounds the decoded bytes -list keeps of one compressed
// record to find its bundle header; a larger header takes the general
// path.
const maxListPrefix = 16 << 20

// listHeaders lists the bundle IDs of an input made of compressed records (one, or several
// back to back with zero padding between) by decoding each only as far as
// its binary bundle header: a record declaring 4 GiB costs its header, not
// 4 GiB of temporary data. LLVM 22 decodes the whole record in memory; it
// never compares the hash, and this never decodes what it would compare.
//
// It does only what it can do exactly as the general path would: it
// returns false, with nothing printed, for anything else (-verbose, which reports
// each decompression; text or archive types; a record that holds no binary
// bundle, or a bundle followed by more data, or any error), and List then
// takes the general path, which words the outcome.
func listHeaders(cfg *Config, h handler, src *container.Source) bool {
	if cfg.Verbose || cfg.FileType == "a" || h.kind == textHandler || !ccob.IsCompressed(src.Prefix(8)) {
		return false
	}
	// A budget of its own: the general path, if it runs, charges afresh.
	b := budget.New(cfg.MaxUncompressedSize)
	if b.Check(ccob.DeclaredSize(src.R, src.Size)) != nil {
		return false
	}
	opt := ccob.ReaderOptions{MaxUncompressedSize: cfg.MaxUncompressedSize, Budget: b}
	var ids []string
	for off := int64(0); off < src.Size; {
		rest := io.NewSectionReader(src.R, off, src.Size-off)
		keep := &ccob.PrefixWriter{Max: maxListPrefix, Enough: headerRead}
		h, span, _, err := ccob.DecompressPrefix(keep, rest, src.Size-off, opt)
		if err != nil {
			return false
		}
		pr := &ccob.PrefixReader{B: keep.Kept}
		es, err := binaryEntries(&container.Source{R: pr, Size: int64(h.UncompressedSize)})
		if err != nil || pr.Missed || len(es) == 0 {
			return false
		}
		for _, e := range es {
			ids = append(ids, e.id)
		}
		if off, err = container.NextRecord(src.R, off+span, src.Size); err != nil {
			return false
		}
	}
	for _, id := range ids {
		fmt.Fprintln(cfg.Stdout, id)
	}
	return true
}

// headerRead reports whether kept, the start of a decoded payload, holds
// a whole binary bundle header, or is no binary bundle at all.
func headerRead(kept []byte) bool {
	if len(kept) >= len(bundle.Magic) && !bundle.IsBinary(kept) {
		return true
	}
	var h bundleHead
	h.head = kept
	_, ok := h.headerEnd()
	return ok
}
