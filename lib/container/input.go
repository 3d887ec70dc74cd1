package container

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// Input is an opened input and the bundles inside it: the input itself, or,
// once decoded (Decode, Expand), the contents of its compressed records,
// all charged to the input's one budget. The MD5 comparisons of
// the records may still be running (DecodeOptions.DeferHash); Check waits
// for them, so that "a hash mismatch explains whatever else went wrong"
// is asked of the input, not remembered by every error path of a caller.
type Input struct {
	Source // the input, read from memory when mapped (InputOptions.Map)
	// Parts are the bundles: the input itself when it is not compressed,
	// else each record's decoded bytes; none when Streamed.
	Parts []*Source
	// Compressed says that the input starts with a compressed record.
	Compressed bool
	// Streamed says that Decode's sink took the whole
	// record as it was decoded: there are no Parts, and Check says
	// whether the bytes it took were the ones stored.
	Streamed bool

	budget  *budget.Budget // what its records may decode, shared with Expand's
	checks  []func() error // each record's deferred comparison, in input order
	offsets []int64        // where each record starts
	undo    []func()
}

// DecodeOptions are Decode's and Expand's: how the input's compressed
// records are decoded, each whole into an unlinked temporary file
// (CCOBRecords, against the input's budget).
type DecodeOptions struct {
	TempDir string // for the decoded records
	// SkipHash and DeferHash are RecordsOptions'. With DeferHash, Check
	// must pass before anything made from the parts is trusted, and a
	// mismatch should be reported before any other error.
	SkipHash, DeferHash bool
	// Decoded, if set, hears of each record once it is decoded (and its
	// hash compared, unless DeferHash), in input order.
	Decoded func(*CCOBRecord)
}

// InputOptions are OpenInput's.
type InputOptions struct {
	TempDir string // for spooling a stream, and for decoded records
	// Limit bounds the bytes decoded from the input, over all its
	// compressed records and those of its parts (Expand): one budget per
	// input (budget.New; 0 is budget.DefaultLimit). LimitHint is how the
	// user raises it (budget.SetHint).
	Limit     uint64
	LimitHint string
	// Map reads a regular file of at most MaxMapped bytes from a memory
	// mapping (Map): read the input in goroutines that defer FaultGuard.
	Map bool
}

// Stream offers Decode an input that is one compressed record followed
// by nothing but zero padding (Streamable) with its header: the decoded
// bytes go to the sink it returns, which writes what it does not take to
// spool (see Sink).
type Stream func(h ccob.Header, spool io.Writer) Sink

// Sink takes a decoded record as it comes out of the decoder. When it
// cannot use the bytes it writes them, and all that follow, to the spool
// it was given, and they become the input's one Part.
type Sink interface {
	io.Writer
	// Finish hears that the record was decoded without error; it returns
	// whether the sink spooled the record.
	Finish() (spooled bool, err error)
}

// OpenInput opens the input called name ("-" for stdin; see Open) and,
// if opt says so, maps it. Its Parts are the input itself until Decode.
// Its errors are Open's.
func OpenInput(name string, opt InputOptions) (*Input, error) {
	b := budget.New(opt.Limit)
	b.SetHint(opt.LimitHint)
	// A stream is bounded by the input's budget: what is spooled is read
	// again, and decoded, so it is work of the same kind.
	src, err := Open(name, opt.TempDir, int64(min(b.Limit(), math.MaxInt64)))
	if se := (*SpoolError)(nil); errors.As(err, &se) {
		se.Hint = opt.LimitHint
	}
	if err != nil {
		return nil, err
	}
	in := &Input{Source: *src, budget: b, undo: []func(){func() { src.Close() }}}
	if opt.Map {
		in.mapFile()
	}
	in.Parts = []*Source{&in.Source}
	return in, nil
}

// Decode decodes the input into stream's sink when stream is set and the
// input is one record (Streamable), else its compressed records into
// Parts, against its budget. Its errors are a *RecordError (with a
// *VersionError for a version this does not know), a *DeclaredError, a
// *TrailingError or an I/O error.
func (in *Input) Decode(opt DecodeOptions, stream Stream) error {
	if stream != nil {
		if h, ok := Streamable(&in.Source); ok {
			return in.streamRecord(h, opt, stream)
		}
	}
	return in.decodeRecords(opt)
}

// mapFile reads the input from a mapping when it can (Map).
func (in *Input) mapFile() {
	if m, unmap := Map(&in.Source); m != nil {
		in.R = m
		in.undo = append(in.undo, unmap)
	}
}

// Expand decodes the compressed records of src, the input or a part of it
// (an archive member), into the Parts of an Input, against the input's
// budget (as Decode); Parts is src itself when src is not compressed.
// Closing that Input leaves src open. Members may be expanded side by
// side.
func (in *Input) Expand(src *Source, opt DecodeOptions) (*Input, error) {
	part := &Input{Source: *src, budget: in.budget}
	if err := part.decodeRecords(opt); err != nil {
		return nil, err
	}
	return part, nil
}

// decodeRecords decodes the input's compressed records (wholeRecords)
// into Parts against its budget; Parts is the input itself when it is not
// compressed.
func (in *Input) decodeRecords(opt DecodeOptions) error {
	in.Compressed = ccob.IsCompressed(in.Prefix(8))
	if !in.Compressed {
		in.Parts = []*Source{&in.Source}
		return nil
	}
	in.Parts = nil
	recs, err := in.wholeRecords(opt)
	if err != nil {
		return in.withVersion(err)
	}
	for _, rec := range recs {
		in.Parts = append(in.Parts, &Source{R: rec.file, Size: int64(rec.Header.UncompressedSize)})
		in.checks = append(in.checks, rec.Check)
		in.offsets = append(in.offsets, rec.Offset)
		in.undo = append(in.undo, rec.Close)
	}
	return nil
}

// wholeRecords decodes the input's records (CCOBRecords) each whole into
// an unlinked file. The bundler, as LLVM's, never looks inside them for
// more compressed data: the walk is Flat. On error no record stays open.
func (in *Input) wholeRecords(opt DecodeOptions) ([]*CCOBRecord, error) {
	var recs []*CCOBRecord
	var spilled *os.File // the file of the record being decoded, until it is visited
	end := int64(0)      // of the records visited
	walk := RecordsOptions{Budget: in.budget, Flat: true, SkipHash: opt.SkipHash, DeferHash: opt.DeferHash}
	walk.Spill = func() (*os.File, error) {
		f, err := Unlinked(opt.TempDir, "offload-ccob-*")
		if err != nil { // the record's failure, as the rest of its decoding's
			at, _ := NextRecord(in.R, end, in.Size)
			return nil, &RecordError{Offset: at, Err: err}
		}
		spilled = f
		return f, nil
	}
	err := CCOBRecords(in.R, in.Size, walk, func(rec *CCOBRecord) error {
		recs, spilled, end = append(recs, rec), nil, rec.Offset+rec.Used
		if opt.Decoded != nil {
			opt.Decoded(rec)
		}
		return nil
	})
	if err == nil {
		return recs, nil
	}
	if spilled != nil {
		spilled.Close()
	}
	for _, rec := range recs {
		rec.Close()
	}
	return nil, err
}

// Check waits for the deferred MD5 comparisons of the records and returns
// the first mismatch, a *RecordError; it may be called again.
func (in *Input) Check() error {
	for i, check := range in.checks {
		if err := check(); err != nil {
			return &RecordError{Offset: in.offsets[i], Err: err}
		}
	}
	return nil
}

// Close removes the decoded records, once their comparisons are done, and
// closes the input if OpenInput opened it.
func (in *Input) Close() {
	for i := len(in.undo) - 1; i >= 0; i-- {
		in.undo[i]()
	}
	in.undo = nil
}

// Prefix returns up to n leading bytes of s, for telling its format.
func (s *Source) Prefix(n int) []byte {
	n = int(min(int64(n), s.Size))
	b := make([]byte, n)
	k, _ := s.R.ReadAt(b, 0)
	return b[:k]
}

// Reader returns a fresh sequential reader over the whole of s.
func (s *Source) Reader() io.Reader { return io.NewSectionReader(s.R, 0, s.Size) }

// VersionError is a compressed record of a version this does not know
// (it wraps ccob.ErrUnknownVersion), with the version it declares.
type VersionError struct{ Version uint16 }

func (e *VersionError) Error() string {
	return fmt.Sprintf("%v %d", ccob.ErrUnknownVersion, e.Version)
}

func (e *VersionError) Unwrap() error { return ccob.ErrUnknownVersion }

// withVersion adds the version a record declares to a *RecordError that
// says it is unknown, for the caller's message.
func (in *Input) withVersion(err error) error {
	var re *RecordError
	if errors.As(err, &re) && errors.Is(re.Err, ccob.ErrUnknownVersion) {
		var v [2]byte
		in.R.ReadAt(v[:], re.Offset+4)
		re.Err = &VersionError{Version: binary.LittleEndian.Uint16(v[:])}
	}
	return err
}
