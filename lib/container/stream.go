package container

import (
	"math"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// Streamable returns the header of src's compressed record when src is
// one record followed by nothing but zero padding, so that the record may
// be decoded into a Sink (Stream).
func Streamable(src *Source) (ccob.Header, bool) {
	h, err := ccob.ParseHeader(src.Prefix(ccob.HeaderSizeV3))
	if err != nil || h.UncompressedSize > math.MaxInt64 {
		return h, false
	}
	if h.Version == 1 {
		return h, true
	}
	if h.TotalSize > uint64(src.Size) {
		return h, false
	}
	next, err := ccob.SkipPadding(src.R, int64(h.TotalSize), src.Size)
	return h, err == nil && next == src.Size
}

// streamRecord decodes the input, one compressed record with header h, into
// stream's sink; the sink's spool, if it spooled, is the one part.
func (in *Input) streamRecord(h ccob.Header, opt DecodeOptions, stream Stream) error {
	in.Compressed = true
	spool, err := Unlinked(opt.TempDir, "offload-ccob-*")
	if err != nil {
		return err
	}
	sink := stream(h, spool)
	copt := ccob.ReaderOptions{MaxUncompressedSize: in.budget.Limit(), SkipHashCheck: opt.SkipHash, Budget: in.budget}
	_, _, check, err := ccob.DecompressDeferred(sink, in.R, in.Size, copt)
	spooled := false
	if err == nil {
		spooled, err = sink.Finish()
	}
	if err != nil {
		spool.Close()
		return in.withVersion(&RecordError{Err: err})
	}
	in.checks, in.offsets, in.Parts = []func() error{check}, []int64{0}, nil
	if spooled {
		in.Parts = []*Source{{R: spool, Size: int64(h.UncompressedSize)}}
		in.undo = append(in.undo, func() { spool.Close() }, func() { check() })
		return nil
	}
	spool.Close()
	in.Streamed = true
	in.undo = append(in.undo, func() { check() })
	return nil
}
