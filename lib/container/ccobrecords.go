package container

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// RecordsOptions are CCOBRecords's: what its callers (inspect, extract,
// the bundler's inputs) differ on, named for what it means.
type RecordsOptions struct {
	// Budget is the input's. The walk over the records is one layer of
	// compressed data on it (budget.Container: refused inside compressed
	// data, with budget.ErrNested, unless nesting is allowed; see Flat);
	// what all the records declare is checked against it first, and each
	// record is charged once, before it is decoded. Its limit is also the
	// most one record may declare.
	Budget *budget.Budget
	// Flat says that the caller never looks inside the records for more
	// compressed data (the bundler, as LLVM's): the walk is no layer on
	// Budget, neither refused nor counted, so that walks sharing a budget
	// may run side by side (the bundler's archive members).
	Flat bool
	// Spill returns an unlinked temporary file for a payload decoded
	// whole; the caller closes it once it is done with the record.
	Spill func() (*os.File, error)
	// Prefix, if above 0, is how many leading bytes of each payload are
	// decoded into memory and looked at first (Look): only a look that
	// reads past them decodes the record again, whole, into a spill file.
	// 0 decodes every record whole into a spill file.
	Prefix int
	// Enough, with Prefix, stops decoding a payload once the bytes kept
	// hold all that the look reads (a listing reads headers: a record
	// declaring 4 GiB costs its first bytes). Such a record's hash is
	// compared only if it is decoded whole, and damage past what was
	// decoded goes unnoticed (LLVM 22 never compares the hash). Without
	// Enough every record is decoded to its end, its hash compared, and
	// its first Prefix bytes kept.
	Enough func(kept []byte, size int64) bool
	// KeepMismatched visits a record whose hash does not match, with
	// HashErr set, and ends the walk after it (inspect describes damaged
	// inputs); otherwise the mismatch is the record's error.
	KeepMismatched bool
	// SkipHash compares no hash (the bundler's --skip-hash-check; LLVM 22
	// never compares it).
	SkipHash bool
	// DeferHash, with Prefix 0, visits each record while its hash
	// comparison still runs (the bundler copies entries out meanwhile):
	// the caller must Check the record before it trusts anything made
	// from it, and Close it. Otherwise a record is compared before it is
	// visited.
	DeferHash bool
}

// CCOBRecord is one compressed record of a walk (CCOBRecords).
type CCOBRecord struct {
	Offset int64       // where it starts in the walk's input
	Header ccob.Header // as stored
	Used   int64       // the bytes of the input it spans
	// HashErr, with KeepMismatched, is the comparison of its hash that
	// failed (it wraps ccob.ErrHashMismatch).
	HashErr error
	// Kept is how many bytes of the payload the first decoding kept in
	// memory (Prefix); 0 for a record decoded whole into a file.
	Kept int
	// Took is how long decoding it to its end last took, with its hash
	// comparison unless DeferHash (-verbose prints the speed).
	Took time.Duration

	src     *io.SectionReader // the input from Offset on
	opt     *RecordsOptions
	prefix  []byte       // the payload's kept bytes
	file    *os.File     // or the payload, decoded whole
	checked bool         // the hash was compared
	check   func() error // with DeferHash, waits for the comparison
}

// CCOBRecords walks the compressed records stored back to back in the size
// bytes of r, with zero padding between them, decoding each as opt says
// and calling visit with it (which looks inside with Look). Its errors:
// budget.ErrNested or the budget's refusal of what the records declare
// (a *DeclaredError), before any record; a *RecordError
// for a record that does not decode (or whose hash does not match); a
// *TrailingError for data after a record that is neither padding nor a
// record; visit's error, as it is; Spill's; an I/O error of r.
func CCOBRecords(r io.ReaderAt, size int64, opt RecordsOptions, visit func(*CCOBRecord) error) error {
	if !opt.Flat {
		if err := opt.Budget.Enter(budget.Container); err != nil {
			return err
		}
		defer opt.Budget.Leave()
	}
	if err := opt.Budget.Check(ccob.DeclaredSize(r, size)); err != nil {
		return &DeclaredError{Err: err}
	}
	for off := int64(0); off < size; {
		rec := &CCOBRecord{Offset: off, src: io.NewSectionReader(r, off, size-off), opt: &opt}
		if err := rec.decode(); err != nil {
			return err
		}
		if err := visit(rec); err != nil {
			return err
		}
		if rec.HashErr != nil {
			return nil
		}
		var err error
		if off, err = NextRecord(r, off+rec.Used, size); err != nil {
			return err
		}
	}
	return nil
}

// DeclaredError is the budget's refusal of what all the records of a
// walk declare, before any is decoded.
type DeclaredError struct{ Err error }

func (e *DeclaredError) Error() string { return "compressed bundles: " + e.Err.Error() }

func (e *DeclaredError) Unwrap() error { return e.Err }

// decode decodes the record as far as its first look needs: whole into a
// spill file, or its first opt.Prefix bytes into memory. Its errors are a
// *RecordError, or Spill's; a damaged header is found before Spill is
// asked for a file, so it is what is reported when both fail.
func (rec *CCOBRecord) decode() error {
	h, err := ccob.ParseHeader(headOf(rec.src, ccob.HeaderSizeV3))
	if err != nil {
		return rec.failed(err)
	}
	rec.Header = h
	opt := ccob.ReaderOptions{MaxUncompressedSize: rec.opt.Budget.Limit(), Budget: rec.opt.Budget}
	switch {
	case rec.opt.Prefix <= 0:
		return rec.decodeWhole(opt)
	case rec.opt.Enough != nil:
		keep := &ccob.PrefixWriter{Max: rec.opt.Prefix, Enough: func(kept []byte) bool { return rec.opt.Enough(kept, int64(h.UncompressedSize)) }}
		_, rec.Used, _, err = ccob.DecompressPrefix(keep, rec.src, rec.src.Size(), opt)
		rec.prefix, rec.Kept = keep.Kept, len(keep.Kept)
		return rec.failed(err)
	}
	keep := &prefixWriter{max: rec.opt.Prefix}
	err = rec.decodeInto(keep, opt)
	rec.prefix, rec.Kept = keep.buf, len(keep.buf)
	return err
}

// decodeWhole decodes the record into a spill file (see decodeInto).
func (rec *CCOBRecord) decodeWhole(opt ccob.ReaderOptions) error {
	f, err := rec.opt.Spill()
	if err != nil {
		return err
	}
	rec.file = f
	return rec.decodeInto(f, opt)
}

// decodeInto decodes the whole record into w, comparing its hash unless
// that was done already or is skipped (SkipHash), or leaving the
// comparison running (DeferHash); opt charges the budget, or nothing when
// the record was charged by its first decoding. Its errors are a
// *RecordError.
func (rec *CCOBRecord) decodeInto(w io.Writer, opt ccob.ReaderOptions) error {
	start := time.Now()
	opt.SkipHashCheck = rec.checked || rec.opt.SkipHash
	_, used, check, err := ccob.DecompressDeferred(w, rec.src, rec.src.Size(), opt)
	if err != nil {
		return rec.failed(err)
	}
	rec.Used, rec.checked = used, true
	if rec.opt.DeferHash {
		rec.check, rec.Took = check, time.Since(start)
		return nil
	}
	err = rec.compare(check)
	rec.Took = time.Since(start)
	return rec.failed(err)
}

// Check waits for the record's deferred hash comparison (DeferHash) and
// returns a mismatch, an error wrapping ccob.ErrHashMismatch; nil for a
// record compared before it was visited. It may be called again.
func (rec *CCOBRecord) Check() error {
	if rec.check == nil {
		return nil
	}
	return rec.check()
}

// Close waits for the record's hash comparison, so that its goroutine
// never outlives the record, and closes the file it was decoded into, for
// a caller whose Spill does not close its files itself.
func (rec *CCOBRecord) Close() {
	rec.Check()
	if rec.file != nil {
		rec.file.Close()
	}
}

// failed is err as the record's *RecordError; nil for nil.
func (rec *CCOBRecord) failed(err error) error {
	if err == nil {
		return nil
	}
	return &RecordError{Offset: rec.Offset, Err: err}
}

// compare waits for the hash comparison: a mismatch is the record's error,
// or HashErr with KeepMismatched.
func (rec *CCOBRecord) compare(check func() error) error {
	err := check()
	if err != nil && rec.opt.KeepMismatched && errors.Is(err, ccob.ErrHashMismatch) {
		rec.HashErr = err
		return nil
	}
	return err
}

// Look calls look with a reader over the record's payload (its
// Header.UncompressedSize bytes), whole says whether all of them can be
// read. A look at a kept prefix runs on the budget as it is, but if it
// reads past the prefix or fails, the budget is rewound to where it was
// before the look, the record is decoded again, whole, into a spill file
// (charging nothing twice), and look is called again: the caller's look
// must start afresh each time. An error decoding again is a *RecordError
// (or Spill's).
func (rec *CCOBRecord) Look(look func(payload io.ReaderAt, whole bool) error) error {
	if rec.file != nil {
		return look(rec.file, true)
	}
	pr := &ccob.PrefixReader{B: rec.prefix}
	mark := rec.opt.Budget.Used()
	if err := look(pr, false); err == nil && !pr.Missed {
		return nil
	}
	rec.opt.Budget.Rewind(mark)
	if err := rec.decodeWhole(ccob.ReaderOptions{MaxUncompressedSize: rec.opt.Budget.Limit()}); err != nil {
		return err
	}
	return look(rec.file, true)
}

// headOf is the first n bytes of r, fewer where it is shorter.
func headOf(r *io.SectionReader, n int) []byte {
	b := make([]byte, min(int64(n), r.Size()))
	k, _ := r.ReadAt(b, 0)
	return b[:k]
}

// prefixWriter keeps the first max bytes written to it and counts the
// rest, so that a record can be hashed whole while what is looked at
// stays bounded.
type prefixWriter struct {
	buf []byte
	max int
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if room := p.max - len(p.buf); room > 0 {
		p.buf = append(p.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}
