// Package ccob reads and writes compressed offload bundles ("CCOB"), the
// wrapper clang-offload-bundler -compress puts around a complete
// uncompressed bundle (binary or text).
//
// A CCOB is a header (magic "CCOB", u16 version, u16 method, sizes and a
// truncated MD5 of the uncompressed bundle, all little-endian) followed by
// one zlib stream or one zstd frame:
//
//	version 1 (20 bytes): u32 uncompressed size, u64 hash        (read only)
//	version 2 (24 bytes): u32 total size, u32 uncompressed size, u64 hash
//	version 3 (32 bytes): u64 total size, u64 uncompressed size, u64 hash
//
// Total size counts the header and the compressed payload. LLVM 22 writes
// version 3 by default and ignores the total size when reading; this package
// bounds the payload by it, so padding or a second CCOB after the first does
// not reach the decoder, and it verifies the hash, which LLVM 22 does not.
package ccob

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Magic starts every CCOB.
const Magic = "CCOB"

// Header sizes per version.
const (
	HeaderSizeV1 = 20
	HeaderSizeV2 = 24
	HeaderSizeV3 = 32
)

// Method is the compression method field, llvm::compression::Format.
type Method uint16

const (
	MethodZlib Method = 0 // RFC 1950 zlib stream
	MethodZstd Method = 1 // one zstd frame
)

func (m Method) String() string {
	switch m {
	case MethodZlib:
		return "zlib"
	case MethodZstd:
		return "zstd"
	}
	return fmt.Sprintf("Method(%d)", uint16(m))
}

// Header is a decoded CCOB header.
type Header struct {
	Version          uint16
	Method           Method
	TotalSize        uint64 // header + compressed payload; 0 for version 1
	UncompressedSize uint64
	Hash             uint64 // first 8 bytes of the MD5 of the uncompressed bundle, read little-endian
	HeaderSize       int    // 20, 24 or 32, from Version
}

// Errors with LLVM's wording, so drop-in front ends can print them after
// "Failed to decompress input: ".
var (
	ErrHeaderTooSmall = errors.New("Compressed bundle header size too small")
	// ErrUnknownVersion is what LLVM main reports; LLVM 22 misreports an
	// unknown version as ErrHeaderTooSmall.
	ErrUnknownVersion = errors.New("Unknown compressed bundle version")
	ErrUnknownMethod  = errors.New("Unknown compressing method")
	// ErrDecompress prefixes codec failures, as LLVM does.
	ErrDecompress        = errors.New("Could not decompress embedded file contents")
	ErrV2UncompressedMax = errors.New("Uncompressed size exceeds version 2 limit")
	ErrV2TotalMax        = errors.New("Total file size exceeds version 2 limit")
)

// Errors of this package's own checks.
var (
	// ErrNotCompressed means the input is shorter than 8 bytes or lacks
	// the magic; LLVM then treats it as an uncompressed bundle.
	ErrNotCompressed = errors.New("ccob: not a compressed offload bundle")
	// ErrTotalSize means a version 2/3 total size is below the header size
	// or beyond the input.
	ErrTotalSize = errors.New("ccob: bad total file size")
	// ErrTooLarge means the declared uncompressed size exceeds the limit
	// set in ReaderOptions.
	ErrTooLarge = errors.New("ccob: uncompressed size exceeds limit")
	// ErrSizeMismatch means the payload decompressed to a size other than
	// the declared one.
	ErrSizeMismatch = errors.New("ccob: decompressed size does not match header")
	// ErrHashMismatch means the MD5 of the decompressed bundle does not
	// match the header's hash.
	ErrHashMismatch = errors.New("ccob: hash mismatch")
	// ErrSourceSize means Compress's source did not hold exactly the
	// announced number of bytes.
	ErrSourceSize = errors.New("ccob: source size mismatch")
	// ErrOption means a WriterOptions field is out of range.
	ErrOption = errors.New("ccob: invalid option")
)

// commonSize is magic + version + method; LLVM needs this much to see a
// CCOB at all.
const commonSize = 8

// IsCompressed reports whether b starts a CCOB: at least 8 bytes beginning
// with Magic. Like LLVM, a shorter input is not compressed.
func IsCompressed(b []byte) bool {
	return len(b) >= commonSize && string(b[:len(Magic)]) == Magic
}

// HeaderSize returns the header size of a version, or 0 if unknown.
func HeaderSize(version uint16) int {
	switch version {
	case 1:
		return HeaderSizeV1
	case 2:
		return HeaderSizeV2
	case 3:
		return HeaderSizeV3
	}
	return 0
}

// ParseHeader decodes the header at the start of b, which needs to hold
// only the header. It checks the version and method but not the sizes,
// which need the input's length (see Decompress).
func ParseHeader(b []byte) (Header, error) {
	if !IsCompressed(b) {
		return Header{}, ErrNotCompressed
	}
	h := Header{
		Version: binary.LittleEndian.Uint16(b[4:]),
		Method:  Method(binary.LittleEndian.Uint16(b[6:])),
	}
	h.HeaderSize = HeaderSize(h.Version)
	switch {
	case h.HeaderSize == 0:
		return Header{}, ErrUnknownVersion
	case len(b) < h.HeaderSize:
		return Header{}, ErrHeaderTooSmall
	}
	switch h.Version {
	case 1:
		h.UncompressedSize = uint64(binary.LittleEndian.Uint32(b[8:]))
		h.Hash = binary.LittleEndian.Uint64(b[12:])
	case 2:
		h.TotalSize = uint64(binary.LittleEndian.Uint32(b[8:]))
		h.UncompressedSize = uint64(binary.LittleEndian.Uint32(b[12:]))
		h.Hash = binary.LittleEndian.Uint64(b[16:])
	case 3:
		h.TotalSize = binary.LittleEndian.Uint64(b[8:])
		h.UncompressedSize = binary.LittleEndian.Uint64(b[16:])
		h.Hash = binary.LittleEndian.Uint64(b[24:])
	}
	if h.Method != MethodZlib && h.Method != MethodZstd {
		return Header{}, ErrUnknownMethod
	}
	return h, nil
}

// AppendBinary appends the encoded header to b. HeaderSize is ignored (it
// follows from Version). Sizes that do not fit version 1 or 2 fields are an
// error, using LLVM's messages for version 2.
func (h Header) AppendBinary(b []byte) ([]byte, error) {
	if h.Method != MethodZlib && h.Method != MethodZstd {
		return b, ErrUnknownMethod
	}
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, h.Version)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Method))
	switch h.Version {
	case 1:
		if h.UncompressedSize > math.MaxUint32 {
			return b, fmt.Errorf("%w: uncompressed size %d does not fit version 1", ErrOption, h.UncompressedSize)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(h.UncompressedSize))
	case 2:
		if h.UncompressedSize > math.MaxUint32 {
			return b, ErrV2UncompressedMax
		}
		if h.TotalSize > math.MaxUint32 {
			return b, ErrV2TotalMax
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(h.TotalSize))
		b = binary.LittleEndian.AppendUint32(b, uint32(h.UncompressedSize))
	case 3:
		b = binary.LittleEndian.AppendUint64(b, h.TotalSize)
		b = binary.LittleEndian.AppendUint64(b, h.UncompressedSize)
	default:
		return b, ErrUnknownVersion
	}
	return binary.LittleEndian.AppendUint64(b, h.Hash), nil
}

// hashOf truncates an MD5 digest the way LLVM does (MD5Result::low): the
// first 8 bytes as a little-endian integer.
func hashOf(sum []byte) uint64 { return binary.LittleEndian.Uint64(sum[:8]) }
