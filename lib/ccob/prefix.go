package ccob

import (
	"errors"
	"io"
)

// ErrEnough is what a writer given to DecompressPrefix returns once it has
// all of the payload it needs.
var ErrEnough = errors.New("ccob: enough of the payload decoded")

// DecompressPrefix is Decompress for readers that need only the start of
// the payload, such as a listing that needs the bundle header: it streams
// the payload into w until w returns ErrEnough (or the payload ends), so
// a record declaring 4 GiB whose header is in its first bytes costs those
// bytes, not 4 GiB of decoding.
//
// The declared size is still checked against the limit and charged to
// the budget first, as Decompress does, so inputs that Decompress refuses
// are refused here too. But what is not decoded is not checked: the hash
// is never compared (LLVM 22 never compares it either), and a damaged
// stream after the part decoded goes unnoticed. whole reports that the
// payload was decoded to its end (and its size checked). The span is the
// input bytes the record occupies, as Decompress returns it.
func DecompressPrefix(w io.Writer, r io.ReaderAt, size int64, opt ReaderOptions) (h Header, span int64, whole bool, err error) {
	opt.SkipHashCheck = true
	h, span, _, err = DecompressDeferred(w, r, size, opt)
	if errors.Is(err, ErrEnough) {
		end, perr := payloadEnd(h, size)
		return h, end, false, perr
	}
	return h, span, err == nil, err
}

// PrefixWriter keeps the start of a payload that DecompressPrefix streams
// into it, until Enough (asked each time what it holds has doubled, so
// that asking costs linear time) says it has all it needs, or it holds
// Max bytes.
type PrefixWriter struct {
	Enough func(kept []byte) bool
	Max    int
	Kept   []byte
	ask    int // len(Kept) from which Enough is asked again
}

func (p *PrefixWriter) Write(b []byte) (int, error) {
	p.Kept = append(p.Kept, b[:min(len(b), p.Max-len(p.Kept))]...)
	if len(p.Kept) >= p.Max {
		return len(b), ErrEnough
	}
	if len(p.Kept) >= p.ask {
		if p.Enough(p.Kept) {
			return len(b), ErrEnough
		}
		p.ask = max(2*len(p.Kept), 4096)
	}
	return len(b), nil
}

// PrefixReader reads a payload's decoded prefix, and records any read that
// needs more of it, so that a caller can run its usual parsing on the
// prefix and fall back to decoding everything if Missed.
type PrefixReader struct {
	B      []byte
	Missed bool
}

// errBeyond is what reads past the prefix fail with.
var errBeyond = errors.New("ccob: read past the decoded prefix")

func (p *PrefixReader) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(p.B)) || int64(len(b)) > int64(len(p.B))-off {
		p.Missed = true
		return 0, errBeyond
	}
	return copy(b, p.B[off:]), nil
}
