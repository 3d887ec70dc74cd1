package container

import (
	"bytes"
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
	// Records inside compressed data keep less (nestedPrefix). 0 decodes
	// every record whole into a spill file.
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

	src      *io.SectionReader // the input from Offset on
	opt      *RecordsOptions
	prefix   []byte       // the payload's kept bytes
	file     *os.File     // or the payload, decoded whole
	checked  bool         // the hash was compared
	check    func() error // with DeferHash, waits for the comparison
	payload  *payload     // what looks read (Look)
	lateErr  error        // decoding whole for a look failed (Err)
	released bool         // the visit has ended: the prefix is gone
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
	prefix := opt.Prefix
	if !opt.Flat {
		prefix = nestedPrefix(prefix, opt.Budget.Layers())
	}
	var spare []byte // the prefix of the record before, to decode the next into
	for off := int64(0); off < size; {
		rec := &CCOBRecord{Offset: off, src: io.NewSectionReader(r, off, size-off), opt: &opt}
		rec.payload = &payload{rec}
		if err := rec.decode(prefix, spare); err != nil {
			return err
		}
		err := visit(rec)
		spare = rec.release()
		if err != nil {
			return err
		}
		if rec.HashErr != nil {
			return nil
		}
		if off, err = NextRecord(r, off+rec.Used, size); err != nil {
			return err
		}
	}
	return nil
}

// nestedPrefix is the prefix kept of each payload of a walk at the given
// layer of compressed data (1 for records inside none): the prefixes of
// records nested inside each other are all held while the innermost is
// looked at, so each layer keeps half of what the one around it keeps,
// down to minPrefix, and all of them together hold little more than
// twice the outermost's, however deep nesting is allowed to go.
func nestedPrefix(prefix, layer int) int {
	if prefix <= 0 || layer <= 1 {
		return prefix
	}
	return max(prefix>>min(layer-1, 30), min(prefix, minPrefix))
}

// minPrefix is the least a nested record keeps: enough for the headers
// a look reads first.
const minPrefix = 64 << 10

// DeclaredError is the budget's refusal of what all the records of a
// walk declare, before any is decoded.
type DeclaredError struct{ Err error }

func (e *DeclaredError) Error() string { return "compressed bundles: " + e.Err.Error() }

func (e *DeclaredError) Unwrap() error { return e.Err }

// decode decodes the record as far as its look needs first: whole into a
// spill file, or its first prefix bytes into memory (appended to spare, a
// buffer of a record let go, so that a walk of many records does not
// allocate and fault in a prefix for each). Its errors are a
// *RecordError, or Spill's; a damaged header is found before Spill is
// asked for a file, so it is what is reported when both fail.
func (rec *CCOBRecord) decode(prefix int, spare []byte) error {
	h, err := ccob.ParseHeader(headOf(rec.src, ccob.HeaderSizeV3))
	if err != nil {
		return rec.failed(err)
	}
	rec.Header = h
	opt := ccob.ReaderOptions{MaxUncompressedSize: rec.opt.Budget.Limit(), Budget: rec.opt.Budget}
	switch {
	case prefix <= 0:
		return rec.decodeWhole(opt)
	case rec.opt.Enough != nil:
		keep := &ccob.PrefixWriter{Kept: spare, Max: prefix, Enough: func(kept []byte) bool { return rec.opt.Enough(kept, int64(h.UncompressedSize)) }}
		_, rec.Used, _, err = ccob.DecompressPrefix(keep, rec.src, rec.src.Size(), opt)
		rec.prefix, rec.Kept = keep.Kept, len(keep.Kept)
		return rec.failed(err)
	}
	keep := &prefixWriter{buf: spare, max: prefix}
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

// Look calls look once with a reader over the record's payload (its
// Header.UncompressedSize bytes); whole says that all of them are at hand
// (the record was decoded whole into a file). Otherwise reads within the
// kept prefix come from memory, and the first read past it decodes the
// record again, whole, into a spill file (charging nothing twice), from
// which that read and every later one are served: a look is never done
// twice, so records nested inside each other cost one look each, not one
// per look of every record around them. Reads after the record's visit
// has ended fail (its prefix is let go then).
//
// An error decoding the record again is returned in place of look's (a
// *RecordError, or Spill's; Err says it). A look that fails on a prefix
// whose record was never decoded to its end (Enough) has the record
// decoded whole, so that damage past the prefix, or a hash mismatch,
// explains the failure first.
func (rec *CCOBRecord) Look(look func(payload io.ReaderAt, whole bool) error) error {
	err := look(rec.payload, rec.file != nil)
	if rec.lateErr == nil && err != nil && !rec.checked {
		rec.decodeLate()
	}
	if rec.lateErr != nil {
		return rec.lateErr
	}
	return err
}

// Err is the error decoding the record again, whole, during or after a
// look (see Look); nil when that was not needed or went well. Nothing
// found in the record's prefix should be trusted when it is set.
func (rec *CCOBRecord) Err() error { return rec.lateErr }

// decodeLate decodes the record whole into a spill file once a look
// needs more than its kept prefix, charging nothing (its declared size
// was charged by its first decoding), and lets the prefix go: the file
// holds it too.
func (rec *CCOBRecord) decodeLate() error {
	if rec.lateErr != nil || rec.file != nil {
		return rec.lateErr
	}
	if err := rec.decodeWhole(ccob.ReaderOptions{MaxUncompressedSize: rec.opt.Budget.Limit()}); err != nil {
		rec.lateErr = err
		return err
	}
	rec.prefix = nil
	return nil
}

// release lets the record's kept prefix go once its visit has ended: what
// was found in it is described or handed on by then, and a walk of many
// records holds one prefix at a time, not one per record (what callers
// keep of them, such as a listing's images, no longer reads the bytes).
// It returns the prefix's buffer, emptied, for the next record.
func (rec *CCOBRecord) release() []byte {
	spare := rec.prefix[:0]
	rec.prefix, rec.released = nil, true
	return spare
}

// errReleased is what reads of a record's payload from memory fail with
// after its visit.
var errReleased = errors.New("the decoded bytes of the compressed bundle were let go after it was walked")

// payload reads a record's payload for its look (see Look).
type payload struct{ rec *CCOBRecord }

func (p *payload) ReadAt(b []byte, off int64) (int, error) {
	rec := p.rec
	if rec.file == nil {
		switch {
		case rec.released:
			return 0, errReleased
		case off >= 0 && off <= int64(len(rec.prefix)) && int64(len(b)) <= int64(len(rec.prefix))-off:
			return copy(b, rec.prefix[off:]), nil
		case uint64(len(rec.prefix)) == rec.Header.UncompressedSize:
			return bytes.NewReader(rec.prefix).ReadAt(b, off) // all of it: past its end is io.EOF
		}
		if err := rec.decodeLate(); err != nil {
			return 0, err
		}
	}
	return rec.file.ReadAt(b, off)
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

// Whole reports whether all of the record's payload is at hand (decoded
// whole into a file), so that nothing read from it can fail for want of
// decoding.
func (rec *CCOBRecord) Whole() bool { return rec.file != nil }
