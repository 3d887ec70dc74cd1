package offloadbin

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
	"github.com/rules-offload/rules_offload/lib/strtab"
)

// ErrNoEntries is returned by WriteEntries for an empty entry list, which
// LLVM's writer does not allow.
var ErrNoEntries = errors.New("offloadbin: no entries to write")

// Entry is one image for WriteEntries.
type Entry struct {
	ImageKind   ImageKind
	OffloadKind OffloadKind
	Flags       uint32
	// Strings are written in this order. Keys cannot contain NUL (readers
	// find their end with strlen); from version 2 on values can, because
	// their size is stored.
	Strings []KV
	// Image supplies exactly Size bytes.
	Image io.Reader
	Size  int64
}

// Compression is the codec of a compressed version 3 binary.
type Compression uint8

// Codecs. LLVM main sniffs the codec from the body (zstd by its magic,
// everything else is zlib), so the header does not record it.
const (
	NoCompression Compression = iota
	Zlib
	Zstd
)

// ParseCompression maps "zlib", "zstd" and "none" (or "") to a Compression.
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "", "none":
		return NoCompression, nil
	case "zlib":
		return Zlib, nil
	case "zstd":
		return Zstd, nil
	}
	return NoCompression, fmt.Errorf("offloadbin: unknown compression %q (want zlib or zstd)", s)
}

func (c Compression) String() string {
	switch c {
	case NoCompression:
		return "none"
	case Zlib:
		return "zlib"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// LLVM's default levels (llvm::compression::Params): zlib 6, zstd 5.
const (
	zlibLevel = 6
	zstdLevel = 5
	// zstdMaxWindow is libzstd's window at level 5 for large inputs.
	zstdMaxWindow = 2 << 20
)

// WriteEntries writes one OffloadBinary of the given version holding all
// entries, as LLVM main's OffloadBinary::write does, and returns the number
// of bytes written.
//
// Version 1 takes exactly one entry and is Write. Versions 2 and 3 lay the
// binary out as
//
//	header | entries | string entries | string table | pad to 8 | images | pad to 8
//
// with one string table shared by all entries (built as Write builds it), the
// string entries of all entries in entry order, and the images back to back,
// so that only the first image is 8-aligned. The version 2 header is 32
// bytes; version 3 adds InflatedSize (40 bytes), which is 0 unless comp
// selects a codec. A compressed version 3 binary is the header followed by
// everything after it compressed as one zlib or zstd stream; its Size field
// is 40 plus the compressed size (not a multiple of 8) and zero bytes pad the
// output to 8. Only version 3 can be compressed.
//
// Images are streamed. A compressed body is assembled in memory, because the
// header in front of it records its size.
func WriteEntries(w io.Writer, version uint32, entries []Entry, comp Compression) (int64, error) {
	switch {
	case comp > Zstd:
		return 0, fmt.Errorf("offloadbin: unknown compression %d", comp)
	case comp != NoCompression && version != 3:
		return 0, fmt.Errorf("offloadbin: version %d cannot be compressed", version)
	case len(entries) == 0:
		return 0, ErrNoEntries
	}
	switch version {
	case 1:
		if len(entries) != 1 {
			return 0, fmt.Errorf("offloadbin: version 1 holds one entry, not %d", len(entries))
		}
		e := entries[0]
		return Write(w, e.ImageKind, e.OffloadKind, e.Flags, e.Strings, e.Image, e.Size)
	case 2, 3:
	default:
		return 0, fmt.Errorf("offloadbin: cannot write version %d", version)
	}
	l, err := layOut(version, entries)
	if err != nil {
		return 0, err
	}
	if comp == NoCompression {
		n, err := w.Write(l.header)
		if err != nil {
			return int64(n), err
		}
		m, err := l.writeBody(w, entries)
		return int64(n) + m, err
	}
	return l.writeCompressed(w, entries, comp)
}

// layout is a planned version 2 or 3 binary: its header, everything from the
// entries to the first image (meta), and its uncompressed size.
type layout struct {
	header, meta []byte
	size         int64
}

func layOut(version uint32, entries []Entry) (*layout, error) {
	hdrLen := int64(headerSize)
	if version >= 3 {
		hdrLen = headerSizeV3
	}
	var all []string
	var numStrings, imagesSize int64
	for _, e := range entries {
		if e.Size < 0 || e.Size > math.MaxInt64/2-imagesSize {
			return nil, fmt.Errorf("offloadbin: bad image size %d", e.Size)
		}
		imagesSize += e.Size
		for _, kv := range e.Strings {
			if hasNUL(kv.Key) {
				return nil, fmt.Errorf("%w: key %q", ErrNUL, kv.Key)
			}
			all = append(all, kv.Key, kv.Value)
		}
		numStrings += int64(len(e.Strings))
	}
	table, offsets := strtab.Build(all)

	strEntOff := hdrLen + int64(len(entries))*entrySize
	tabOff := strEntOff + numStrings*stringEntrySizeV2
	dataOff := alignUp(tabOff+int64(len(table)), Alignment)
	if dataOff > math.MaxInt64/2 {
		return nil, fmt.Errorf("offloadbin: metadata too large")
	}
	l := &layout{size: alignUp(dataOff+imagesSize, Alignment)}

	l.header = make([]byte, hdrLen)
	copy(l.header, Magic)
	le.PutUint32(l.header[4:], version)
	le.PutUint64(l.header[8:], uint64(l.size))
	le.PutUint64(l.header[16:], uint64(hdrLen))
	le.PutUint64(l.header[24:], uint64(len(entries)))

	l.meta = make([]byte, dataOff-hdrLen)
	at := func(abs int64) []byte { return l.meta[abs-hdrLen:] }
	se, img := strEntOff, dataOff
	for i, e := range entries {
		b := at(hdrLen + int64(i)*entrySize)
		le.PutUint16(b[0:], uint16(e.ImageKind))
		le.PutUint16(b[2:], uint16(e.OffloadKind))
		le.PutUint32(b[4:], e.Flags)
		le.PutUint64(b[8:], uint64(se))
		le.PutUint64(b[16:], uint64(len(e.Strings)))
		le.PutUint64(b[24:], uint64(img))
		le.PutUint64(b[32:], uint64(e.Size))
		for _, kv := range e.Strings {
			s := at(se)
			le.PutUint64(s[0:], uint64(tabOff)+offsets[kv.Key])
			le.PutUint64(s[8:], uint64(tabOff)+offsets[kv.Value])
			le.PutUint64(s[16:], uint64(len(kv.Value)))
			se += stringEntrySizeV2
		}
		img += e.Size
	}
	copy(at(tabOff), table)
	return l, nil
}

// writeBody writes everything after the header: meta, the images and the
// final padding.
func (l *layout) writeBody(w io.Writer, entries []Entry) (int64, error) {
	n, err := w.Write(l.meta)
	written := int64(n)
	if err != nil {
		return written, err
	}
	for i, e := range entries {
		m, err := io.CopyN(w, e.Image, e.Size)
		written += m
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("offloadbin: image %d shorter than %d bytes: %w", i, e.Size, io.ErrUnexpectedEOF)
			}
			return written, err
		}
	}
	var pad [Alignment]byte
	end := int64(len(l.header)) + written
	n, err = w.Write(pad[:l.size-end])
	return written + int64(n), err
}

// writeCompressed writes the header with InflatedSize set, then the body
// compressed as one stream, then zero padding to 8.
func (l *layout) writeCompressed(w io.Writer, entries []Entry, comp Compression) (int64, error) {
	bodySize := l.size - int64(len(l.header))
	var body bytes.Buffer
	enc, err := newCompressor(&body, comp, bodySize)
	if err != nil {
		return 0, err
	}
	if _, err := l.writeBody(enc, entries); err != nil {
		enc.Close()
		return 0, err
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	size := int64(len(l.header)) + int64(body.Len())
	hdr := append([]byte(nil), l.header...)
	le.PutUint64(hdr[8:], uint64(size))
	le.PutUint64(hdr[32:], uint64(l.size))

	var pad [Alignment]byte
	written := int64(0)
	for _, b := range [][]byte{hdr, body.Bytes(), pad[:alignUp(size, Alignment)-size]} {
		n, err := w.Write(b)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// newCompressor returns a single-stream compressor at LLVM's default level.
// The zstd frame records the content size and carries no checksum, as
// libzstd's ZSTD_compress2 writes it for LLVM. Its window is never larger
// than the content (libzstd's level 5 caps it at 2 MiB), so decoders that
// bound memory by the inflated size, ours included, accept it.
func newCompressor(w io.Writer, comp Compression, size int64) (io.WriteCloser, error) {
	if comp == Zlib {
		return zlib.NewWriterLevel(w, zlibLevel)
	}
	window := int64(zstdMaxWindow)
	for window > size && window > zstd.MinWindowSize {
		window /= 2
	}
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(zstdLevel)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(int(window)))
	if err != nil {
		return nil, err
	}
	enc.ResetContentSize(w, size)
	return enc, nil
}
