package ccob

import (
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// WriterOptions tunes Compress. Start from DefaultWriterOptions for LLVM
// 22's choices: the zero value selects zlib, because MethodZlib is 0.
type WriterOptions struct {
	// Version is 2 or 3; 0 means 3, LLVM 22's default. Version 2 holds
	// sizes below 4 GiB only.
	Version uint16
	// Method is the codec. LLVM 22 builds with zstd use MethodZstd.
	Method Method
	// Level is the codec's level; 0 means LLVM's default (zstd 3, zlib 6).
	// zstd levels (any int, like LLVM's) map onto the encoder's four
	// speeds: negative fastest, 1-2 default, 3-9 better, 10 and up best
	// (see zstdSpeed). zlib takes -2 (Huffman only) to 9.
	Level int
	// WindowSize is the zstd window, a power of two from 1 KiB to
	// MaxWindowSize; 0 picks the content size rounded up to a power of
	// two, at most DefaultMaxWindow. A larger window finds repeats further
	// apart (similar code objects for several targets) at the cost of
	// memory: the encoder holds the window's worth of input, or two
	// windows when the input is larger than one.
	WindowSize int
	// Concurrency is how many goroutines the zstd encoder may use; 0
	// means 1. The MD5 of the input already runs on its own goroutine
	// beside the encoder, and on two cores a second encoder goroutine only
	// competes with it. The output does not depend on it.
	Concurrency int
}

// DefaultMaxWindow bounds the zstd window Compress picks by itself. A bundle
// holds one code object per target, and similar targets (gfx906, gfx908)
// repeat each other a whole code object apart: LLVM reaches 128 MiB back
// with long-distance matching, and this encoder matches its ratio when the
// window spans the input.
const DefaultMaxWindow = MaxWindowSize

// DefaultWriterOptions returns LLVM 22's defaults: version 3, zstd, level 3.
func DefaultWriterOptions() WriterOptions {
	return WriterOptions{Version: 3, Method: MethodZstd, Level: 3}
}

// DefaultLevel is the level LLVM 22's bundler uses for a method when none is
// given: zstd 3, zlib 6 (0 for an unknown method).
func DefaultLevel(m Method) int {
	switch m {
	case MethodZstd:
		return 3
	case MethodZlib:
		return 6
	}
	return 0
}

func (o WriterOptions) resolve(size int64) (WriterOptions, error) {
	if o.Version == 0 {
		o.Version = 3
	}
	if o.Version != 2 && o.Version != 3 {
		return o, fmt.Errorf("%w: version %d (only 2 and 3 can be written)", ErrOption, o.Version)
	}
	if o.Level == 0 {
		o.Level = DefaultLevel(o.Method)
	}
	switch o.Method {
	case MethodZstd:
	case MethodZlib:
		if o.Level < zlib.HuffmanOnly || o.Level > zlib.BestCompression {
			return o, fmt.Errorf("%w: zlib level %d", ErrOption, o.Level)
		}
	default:
		return o, ErrUnknownMethod
	}
	if o.WindowSize == 0 {
		o.WindowSize = defaultWindow(size)
	}
	if o.WindowSize < zstd.MinWindowSize || o.WindowSize > MaxWindowSize || o.WindowSize&(o.WindowSize-1) != 0 {
		return o, fmt.Errorf("%w: window size %d", ErrOption, o.WindowSize)
	}
	if o.Concurrency < 0 {
		return o, fmt.Errorf("%w: concurrency %d", ErrOption, o.Concurrency)
	}
	if o.Concurrency == 0 {
		o.Concurrency = 1
	}
	return o, nil
}

// defaultWindow sizes the window to the content, as zstd does when it
// knows the size, up to DefaultMaxWindow.
func defaultWindow(size int64) int {
	if size <= zstd.MinWindowSize {
		return zstd.MinWindowSize
	}
	return int(min(uint64(1)<<bits.Len64(uint64(size-1)), DefaultMaxWindow))
}

// Compress writes a CCOB holding the uncompressed bundle read from src,
// which must yield exactly uncompressedSize bytes, at w's current offset.
// It streams: a placeholder header, then the compressed payload while
// hashing the input, then it seeks back to fill in the header and leaves w
// positioned after the CCOB. Memory use follows the window, not the input:
// with the default window, about the input size up to 256 MiB, and 512 MiB
// for larger inputs.
//
// The zstd payload is a single frame with the content size and no
// checksum, like LLVM's; the bytes differ from libzstd's. On error w holds
// a partial CCOB.
func Compress(w io.WriteSeeker, src io.Reader, uncompressedSize int64, opt WriterOptions) (Header, error) {
	if uncompressedSize < 0 {
		return Header{}, fmt.Errorf("%w: negative size %d", ErrOption, uncompressedSize)
	}
	o, err := opt.resolve(uncompressedSize)
	if err != nil {
		return Header{}, err
	}
	h := Header{Version: o.Version, Method: o.Method, UncompressedSize: uint64(uncompressedSize), HeaderSize: HeaderSize(o.Version)}
	placeholder, err := h.AppendBinary(nil) // also rejects v2 sizes >= 4 GiB
	if err != nil {
		return Header{}, err
	}
	start, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return Header{}, err
	}
	if _, err := w.Write(placeholder); err != nil {
		return Header{}, err
	}
	cw := &countingWriter{w: w}
	sum, err := compressPayload(cw, src, uncompressedSize, o)
	if err != nil {
		return Header{}, err
	}
	h.TotalSize = uint64(h.HeaderSize) + uint64(cw.n)
	h.Hash = hashOf(sum)
	return h, finishHeader(w, h, start)
}

// compressPayload streams src through the codec into w and returns the MD5
// of what it read.
func compressPayload(w io.Writer, src io.Reader, size int64, o WriterOptions) ([]byte, error) {
	enc, err := newEncoder(w, size, o)
	if err != nil {
		return nil, err
	}
	md := newAsyncMD5()
	err = copyExact(io.MultiWriter(md, enc), src, size)
	sum := md.Sum()
	if err != nil {
		enc.Close()
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return sum, nil
}

func newEncoder(w io.Writer, size int64, o WriterOptions) (io.WriteCloser, error) {
	if o.Method == MethodZlib {
		return zlib.NewWriterLevel(w, o.Level)
	}
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstdSpeed(o.Level)),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(o.WindowSize),
		// History of one window suffices when the input fits in it; else
		// the encoder keeps two so that it slides less often.
		zstd.WithLowerEncoderMem(size <= int64(o.WindowSize)),
		zstd.WithEncoderConcurrency(o.Concurrency),
		zstd.WithSingleSegment(true), // for inputs encoded in one block, as libzstd does
		zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	if size == 0 {
		// A stream given no content size omits it; libzstd writes it.
		return emptyFrame{w, enc}, nil
	}
	enc.ResetContentSize(w, size)
	return enc, nil
}

// emptyFrame writes the frame of an empty input: single segment, content
// size 0, one empty raw block.
type emptyFrame struct {
	w   io.Writer
	enc *zstd.Encoder
}

func (e emptyFrame) Write(p []byte) (int, error) {
	return 0, fmt.Errorf("%w: data for an empty frame", ErrSourceSize)
}

func (e emptyFrame) Close() error {
	_, err := e.w.Write(e.enc.EncodeAll(nil, nil))
	return err
}

// finishHeader writes the final header over the placeholder at start and
// seeks to the end of the CCOB.
func finishHeader(w io.WriteSeeker, h Header, start int64) error {
	hdr, err := h.AppendBinary(nil) // rejects v2 totals >= 4 GiB

	if err != nil {
		return err
	}
	if _, err := w.Seek(start, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err = w.Seek(start+int64(h.TotalSize), io.SeekStart)
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// copyExact copies exactly n bytes from src to w and checks that src has no
// more (exactio.Copy), a wrong size being ErrSourceSize.
func copyExact(w io.Writer, src io.Reader, n int64) error {
	err := exactio.Copy(w, src, n)
	if se := (*exactio.SizeError)(nil); errors.As(err, &se) {
		return fmt.Errorf("%w: source %s", ErrSourceSize, se.Held())
	}
	return err
}

// zstdSpeed maps an LLVM zstd level onto the encoder's four speeds. LLVM
// adds long-distance matching to every level; the notch above the plain
// equivalent comes closest in ratio on bundles whose code objects repeat
// far apart (3 → better: about twice the ratio of default on such input,
// for ~20% more time).
func zstdSpeed(level int) zstd.EncoderLevel {
	switch {
	case level < 1:
		return zstd.SpeedFastest
	case level < 3:
		return zstd.SpeedDefault
	case level < 10:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}
