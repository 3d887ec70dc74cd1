package bundler

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// maxListPrefix bounds the decoded bytes -list keeps of one compressed
// record to find its bundle header; a larger header takes the general
// path.
const maxListPrefix = 16 << 20

// listHeaders lists the bundle IDs of an input made of compressed records
// (one, or several back to back with zero padding between) by decoding each
// only as far as its binary bundle header (container.CCOBRecords with a
// Prefix), or as far as its first bytes show it holds no bundle: a record
// declaring 4 GiB costs its header, not 4 GiB of temporary data. LLVM 22
// decodes the whole record in memory; it never compares the hash, and this
// never decodes what it would compare.
//
// It does only what it can do exactly as the general path would: it
// returns false, with nothing printed, for anything else (-verbose, which
// reports each decompression; text or archive types; a record that holds
// an object, or a bundle followed by more data past the prefix, or any
// error), and List then takes the general path, which words the outcome.
func listHeaders(cfg *Config, h handler, src *container.Source) bool {
	if cfg.Verbose || cfg.FileType == "a" || h.kind == textHandler || !ccob.IsCompressed(src.Prefix(8)) {
		return false
	}
	opt := container.RecordsOptions{
		Budget: budget.New(cfg.MaxUncompressedSize), // its own: the general path, if it runs, charges afresh
		Flat:   true,
		Prefix: maxListPrefix,
		Enough: func(kept []byte, _ int64) bool { return headerRead(kept) },
		Spill:  declineWhole,
	}
	var ids []string
	err := container.CCOBRecords(src.R, src.Size, opt, func(rec *container.CCOBRecord) error {
		return rec.Look(func(payload io.ReaderAt, _ bool) error {
			part := &container.Source{R: payload, Size: int64(rec.Header.UncompressedSize)}
			if head := part.Prefix(8); h.kind == objectHandler && (elfobj.IsELF(head) || isOtherObject(head)) {
				return errObject
			}
			// A payload that is no bundle lists nothing, as on the general
			// path (binaryEntries returns no entries): its first bytes
			// tell, so the rest is not decoded.
			es, err := binaryEntries(part)
			for _, e := range es {
				ids = append(ids, e.id)
			}
			return err
		})
	})
	if err != nil {
		return false
	}
	for _, id := range ids {
		fmt.Fprintln(cfg.Stdout, id)
	}
	return true
}

// errObject is a record that holds an object: its bundle sections are
// found from its section headers, which the general path reads.
var errObject = errors.New("an object, listed by the general path")

// declineWhole is listHeaders' Spill: a record whose bundle header is not
// in its decoded prefix is not decoded whole here; the general path does.
func declineWhole() (*os.File, error) { return nil, errors.New("listed by the general path") }

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
