package container

import (
	"fmt"
	"io"
	"time"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// Record is one compressed record of an input, decoded into an unlinked
// temporary file. Its MD5 comparison may still be running (Check).
type Record struct {
	Source               // the decoded bytes; Name is ""
	Header ccob.Header   // as stored
	Used   int64         // the bytes of the input the record spans
	Took   time.Duration // decoding, and checking unless deferred
	check  func() error
}

// Check waits for the record's MD5 comparison and returns its result (an
// error wrapping ccob.ErrHashMismatch); it may be called again.
func (r *Record) Check() error { return r.check() }

// Close waits for the comparison, so that its goroutine never outlives
// the record, and removes the decoded bytes.
func (r *Record) Close() {
	r.check()
	r.Source.Close()
}

// DecompressOptions are Decompress's.
type DecompressOptions struct {
	TempDir string             // for the decoded records
	CCOB    ccob.ReaderOptions // its Budget is charged what all records declare, first
	// Defer leaves each record's MD5 comparison running when Decompress
	// returns (the bundler copies entries out meanwhile); the caller must
	// Check every record before trusting anything made from it, and should
	// report a mismatch before any other error.
	// Otherwise each record is checked before the next is decoded.
	Defer bool
	// Decoded, if set, hears of each record once it is decoded (and
	// checked, unless Defer), in input order.
	Decoded func(*Record)
}

// RecordError is a compressed record that could not be decoded (or whose
// hash did not match), at Offset of its input.
type RecordError struct {
	Offset int64
	Err    error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("compressed bundle at offset %d: %v", e.Offset, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Decompress decodes the compressed records stored back to back in src
// (NextRecord) into unlinked temporary files, after charging what they all
// declare to opt.CCOB.Budget. Its errors are a *RecordError, a
// *TrailingError or an I/O error of src; on error no record stays open.
func Decompress(src *Source, opt DecompressOptions) ([]*Record, error) {
	if err := opt.CCOB.Budget.Check(ccob.DeclaredSize(src.R, src.Size)); err != nil {
		return nil, &RecordError{Err: err}
	}
	var recs []*Record
	for off := int64(0); off < src.Size; {
		rec, err := decodeRecord(io.NewSectionReader(src.R, off, src.Size-off), src.Size-off, opt)
		if err == nil {
			off += rec.Used
			recs = append(recs, rec)
			off, err = NextRecord(src.R, off, src.Size)
		} else {
			err = &RecordError{Offset: off, Err: err}
		}
		if err != nil {
			closeAll(recs)
			return nil, err
		}
	}
	return recs, nil
}

func decodeRecord(r io.ReaderAt, size int64, opt DecompressOptions) (*Record, error) {
	tmp, err := Unlinked(opt.TempDir, "offload-ccob-*")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	h, used, check, err := ccob.DecompressDeferred(tmp, r, size, opt.CCOB)
	if err == nil && !opt.Defer {
		err = check()
	}
	if err != nil {
		tmp.Close()
		return nil, err
	}
	rec := &Record{Source: Source{R: tmp, Size: int64(h.UncompressedSize)}, Header: h, Used: used, check: check}
	rec.Took = time.Since(start)
	if opt.Decoded != nil {
		opt.Decoded(rec)
	}
	return rec, nil
}

// closeAll closes recs.
func closeAll(recs []*Record) {
	for _, r := range recs {
		r.Close()
	}
}
