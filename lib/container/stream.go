package container

import (
	"math"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// Streamable returns the header of src's compressed record when src is
// one record followed by nothing but zero padding, so that the record may
// be decoded into a Sink (InputOptions.Stream).
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

// stream decodes the input into opt.Stream's sink when it is Streamable,
// and reports whether it did (with in.Parts, or in.Streamed, set) or
// failed (with the error in err).
func (in *Input) stream(opt InputOptions, err *error) bool {
	h, ok := Streamable(&in.Source)
	if !ok {
		return false
	}
	in.Compressed = true
	spool, e := Unlinked(opt.TempDir, "offload-ccob-*")
	if e != nil {
		*err = e
		return true
	}
	sink := opt.Stream(h, spool)
	ccobOpt := opt.Decompress.CCOB
	ccobOpt.Budget = in.budget
	_, _, check, e := ccob.DecompressDeferred(sink, in.R, in.Size, ccobOpt)
	spooled := false
	if e == nil {
		spooled, e = sink.Finish()
	}
	if e != nil {
		spool.Close()
		*err = in.withVersion(&RecordError{Err: e})
		return true
	}
	in.checks, in.offsets = []func() error{check}, []int64{0}
	if spooled {
		in.Parts = []*Source{{R: spool, Size: int64(h.UncompressedSize)}}
		in.undo = append(in.undo, func() { spool.Close() }, func() { check() })
		return true
	}
	spool.Close()
	in.Streamed = true
	in.undo = append(in.undo, func() { check() })
	return true
}
