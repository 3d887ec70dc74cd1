package nvfatbin

// CUDA 12.8's fatbinary and later ones (CUDA 13's by default, for PTX)
// compress an entry as one ZSTD frame, flag 0x8000 where LZ4 has 0x2000:
// a frame of the single-segment kind, with the content size and without a
// checksum or dictionary, as libzstd's one-shot ZSTD_compress writes it.
// Read off the fat binaries of CUDA 13.0's fatbinary (docs/nvfatbin.md):
// `zstd -d` of the payload gives what cuobjdump extracts, and the frames
// of --compress-mode=default equal `zstd -5` (libzstd 1.5.4) of the image.

import (
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// MaxRatioZstd bounds the declared uncompressed size of a ZSTD entry: a
// block inflates to at most 128 KiB and takes at least 4 bytes (its
// 3-byte header and one RLE byte), so a frame cannot inflate more than
// 32768-fold, and a larger declaration is refused (by Read) unread.
const MaxRatioZstd = 1 << 15

// MaxZstdWindow is the largest window a ZSTD frame may ask for: the
// decoder keeps that much of its output, so it bounds memory whatever a
// frame or an entry declares. libzstd asks for 2 MiB at fatbinary's level
// and 64 MiB at level 21 (its single-segment frames ask for their size,
// which is smaller).
const MaxZstdWindow = 64 << 20

// DecompressZstdTo decodes the ZSTD frame src, which must inflate to
// exactly size bytes, into w. Memory holds the frame's window, at most
// MaxZstdWindow and no more than size needs; decoding stops one byte past
// size, so a frame that inflates further costs no more than one that
// does not.
func DecompressZstdTo(w io.Writer, src []byte, size int64) error {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return &ZstdError{0, "bad frame header: " + err.Error()}
	}
	switch {
	case h.Skippable:
		return &ZstdError{0, "a skippable frame, not an image"}
	case h.DictionaryID != 0:
		return &ZstdError{4, fmt.Sprintf("the frame needs dictionary %d, which fat binaries do not carry", h.DictionaryID)}
	case h.HasFCS && h.FrameContentSize != uint64(size):
		return &ZstdError{4, fmt.Sprintf("the frame holds %d bytes, the entry declares %d", h.FrameContentSize, size)}
	}
	window := h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	if window > MaxZstdWindow {
		return &ZstdError{4, fmt.Sprintf("a window of %d bytes, over the %d kept", window, MaxZstdWindow)}
	}
	keep := uint64(max(zstd.MinWindowSize, min(MaxZstdWindow, size)))
	keep = max(keep, window)
	dec, err := zstd.NewReader(bytes.NewReader(src),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(keep),
		zstd.WithDecoderMaxMemory(keep))
	if err != nil {
		return err
	}
	defer dec.Close()
	out := &writeErr{w: w}
	n, err := io.CopyN(out, dec, size)
	switch {
	case out.err != nil:
		return out.err
	case err == io.EOF:
		return &ZstdError{len(src), fmt.Sprintf("inflated to %d bytes, %d declared", n, size)}
	case err != nil:
		return &ZstdError{len(src), err.Error()}
	}
	var one [1]byte
	switch k, err := dec.Read(one[:]); {
	case k > 0:
		return &ZstdError{len(src), fmt.Sprintf("inflates to more than the %d bytes declared", size)}
	case err != io.EOF:
		return &ZstdError{len(src), err.Error()}
	}
	return nil
}

// ZstdError says why a ZSTD frame did not decode.
type ZstdError struct {
	Off int // in the compressed bytes
	Msg string
}

func (e *ZstdError) Error() string {
	return fmt.Sprintf("nvfatbin: ZSTD frame: %s at offset %d", e.Msg, e.Off)
}

func (e *ZstdError) Unwrap() error { return ErrFormat }

// writeErr keeps the error of the writer it passes bytes to, so that the
// writer's failure is not reported as bad input.
type writeErr struct {
	w   io.Writer
	err error
}

func (e *writeErr) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}
