package ccob

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/rules-offload/rules_offload/lib/budget"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// DefaultMaxUncompressedSize is the limit ReaderOptions applies when
// MaxUncompressedSize is 0.
const DefaultMaxUncompressedSize = 4 << 30

// MaxWindowSize is the largest zstd window Decompress accepts and Compress
// writes: 256 MiB. LLVM writes at most 128 MiB (windowLog 27, from its
// long-distance matching) and, decoding in one shot, reads any window.
// Decoding a frame holds one window in memory, and never more than the
// declared uncompressed size rounded up to a power of two.
const MaxWindowSize = 1 << 28

// minWindowCap lets frames from encoders that did not size their window to
// the content (streaming zstd uses up to 8 MiB) decode.
const minWindowCap = 8 << 20

// ReaderOptions tunes Decompress. The zero value is ready to use.
type ReaderOptions struct {
	// MaxUncompressedSize refuses CCOBs declaring a larger uncompressed
	// bundle, before any decoding. 0 means DefaultMaxUncompressedSize.
	MaxUncompressedSize uint64
	// SkipHashCheck skips the MD5 comparison (LLVM 22 never checks it).
	SkipHashCheck bool
	// Budget, when set, is charged each CCOB's declared uncompressed size
	// before decoding, so that the records of one input together (side by
	// side or nested) cannot inflate past it.
	Budget *budget.Budget
}

// Decompress decodes the CCOB at the start of r, which holds size bytes,
// and streams the uncompressed bundle to w. It returns the header and the
// number of input bytes the CCOB spans, so a caller can look for another
// CCOB after it.
//
// For versions 2 and 3 the compressed payload ends at the header's total
// size, which must lie within size; for version 1 it runs to size. The
// declared uncompressed size is checked against the limit before anything
// is allocated, and the output must match it exactly. A hash mismatch
// (ErrHashMismatch) is found only after all output was written, so callers
// must discard w's contents on any error.
func Decompress(w io.Writer, r io.ReaderAt, size int64, opt ReaderOptions) (Header, int64, error) {
	h, n, check, err := DecompressDeferred(w, r, size, opt)
	if err == nil {
		err = check()
	}
	if err != nil {
		return h, 0, err
	}
	return h, n, nil
}

// DecompressDeferred is Decompress, except that it returns once the output
// is written while the MD5 comparison may still be running, so that the
// caller can use the output meanwhile (the bundler copies entries into its
// outputs). check waits for the comparison and returns nil or an error
// wrapping ErrHashMismatch; it must be called, and nothing made from w's
// contents trusted before it returns nil. Calling it again returns the
// same result. On error, check is nil.
func DecompressDeferred(w io.Writer, r io.ReaderAt, size int64, opt ReaderOptions) (h Header, n int64, check func() error, err error) {
	h, err = readHeader(r, size)
	if err != nil {
		return Header{}, 0, nil, err
	}
	end, err := payloadEnd(h, size)
	if err != nil {
		return h, 0, nil, err
	}
	limit := opt.MaxUncompressedSize
	if limit == 0 {
		limit = DefaultMaxUncompressedSize
	}
	if h.UncompressedSize > limit {
		return h, 0, nil, fmt.Errorf("%w: %d > %d", ErrTooLarge, h.UncompressedSize, limit)
	}
	if err := opt.Budget.Reserve(h.UncompressedSize); err != nil {
		return h, 0, nil, fmt.Errorf("ccob: %w", err)
	}
	payload := io.NewSectionReader(r, int64(h.HeaderSize), end-int64(h.HeaderSize))
	out := &boundedWriter{w: w, left: h.UncompressedSize}
	if !opt.SkipHashCheck {
		out.md5 = newAsyncMD5()
	}
	err = decode(out, payload, h)
	if err == nil && out.left != 0 {
		err = fmt.Errorf("%w: got %d bytes, header declares %d", ErrSizeMismatch, h.UncompressedSize-out.left, h.UncompressedSize)
	}
	if err != nil {
		if out.md5 != nil {
			out.md5.Sum() // ends its goroutine
		}
		return h, 0, nil, err
	}
	if out.md5 == nil {
		return h, end, func() error { return nil }, nil
	}
	return h, end, sync.OnceValue(func() error {
		if got := hashOf(out.md5.Sum()); got != h.Hash {
			return fmt.Errorf("%w: header has %#016x, uncompressed bundle hashes to %#016x", ErrHashMismatch, h.Hash, got)
		}
		return nil
	}), nil
}

// readHeader reads and parses the header at the start of r.
func readHeader(r io.ReaderAt, size int64) (Header, error) {
	var buf [HeaderSizeV3]byte
	n := int(min(max(size, 0), int64(len(buf))))
	if got, err := r.ReadAt(buf[:n], 0); got < n {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Header{}, fmt.Errorf("ccob: reading header: %w", err)
	}
	return ParseHeader(buf[:n])
}

// payloadEnd returns the offset where the compressed payload ends.
func payloadEnd(h Header, size int64) (int64, error) {
	if h.Version == 1 {
		return size, nil
	}
	if h.TotalSize < uint64(h.HeaderSize) || h.TotalSize > uint64(size) {
		return 0, fmt.Errorf("%w: %d, header is %d bytes and input %d", ErrTotalSize, h.TotalSize, h.HeaderSize, size)
	}
	return int64(h.TotalSize), nil
}

func decode(out *boundedWriter, payload *io.SectionReader, h Header) error {
	var err error
	switch h.Method {
	case MethodZstd:
		err = decodeZstd(out, payload, h.UncompressedSize)
	case MethodZlib:
		err = decodeZlib(out, payload)
	}
	switch {
	case out.err != nil: // ours or w's, not the codec's
		return out.err
	case err != nil:
		return fmt.Errorf("%w: %v", ErrDecompress, err)
	}
	return nil
}

func decodeZstd(out io.Writer, payload io.Reader, declared uint64) error {
	window := decoderWindow(declared)
	dec, err := zstd.NewReader(payload,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(window),
		zstd.WithDecoderMaxMemory(window))
	if err != nil {
		return err
	}
	defer dec.Close()
	_, err = dec.WriteTo(out)
	return err
}

// decoderWindow caps the window a frame may ask for: zstd sizes windows to
// the content (next power of two), so a larger window only costs memory.
func decoderWindow(declared uint64) uint64 {
	w := uint64(minWindowCap)
	if declared > w {
		w = 1 << bits.Len64(declared-1)
	}
	return min(w, MaxWindowSize)
}

// decodeZlib decodes one zlib stream that must fill the payload exactly.
func decodeZlib(out io.Writer, payload io.Reader) error {
	br := bufio.NewReader(payload) // a ByteReader: flate then reads no further than the stream
	zr, err := zlib.NewReader(br)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		return err
	}
	if err := zr.Close(); err != nil {
		return err
	}
	if n, _ := br.Read(make([]byte, 1)); n > 0 {
		return errors.New("trailing data after the zlib stream")
	}
	return nil
}

// boundedWriter hashes and forwards at most left bytes; more is an error.
type boundedWriter struct {
	w    io.Writer
	left uint64
	md5  *asyncMD5
	err  error
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if uint64(len(p)) > b.left {
		b.err = fmt.Errorf("%w: output exceeds the declared size", ErrSizeMismatch)
		return 0, b.err
	}
	if b.md5 != nil {
		b.md5.Write(p)
	}
	n, err := b.w.Write(p)
	b.left -= uint64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	b.err = err
	return n, err
}
