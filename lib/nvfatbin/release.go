package nvfatbin

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/rules-offload/rules_offload/lib/zstdexact"
)

// Release is the CUDA release whose fatbinary Write writes as. Releases
// differ in how they compress (CUDA 11.8 and 12.4: LZ4 hash chains; CUDA
// 13: ZSTD by default, LZ4 1.10's mid compressor for speed), in how they
// rewrite PTX (12.4: ptx.go) and in the order of the strings in entry
// headers (write.go). All take cubins of either ELF ABI version.
type Release int

const (
	// CUDA118 writes CUDA 11.8's bytes: the default, and what clang's CUDA
	// driver, run with offload as its fatbinary, gets.
	CUDA118 Release = iota
	// CUDA124 writes CUDA 12.4's bytes: 11.8's compression, but PTX
	// rewritten otherwise (ptx.go) and entry headers laid out as 13's.
	CUDA124
	// CUDA130 writes CUDA 13.0's bytes.
	CUDA130
)

func (r Release) String() string {
	switch r {
	case CUDA118:
		return "11.8"
	case CUDA124:
		return "12.4"
	case CUDA130:
		return "13.0"
	}
	return fmt.Sprintf("release %d", int(r))
}

// ParseRelease reads a CUDA version ("12.4", "13.0", "12", "12.6.3") as
// the release whose fatbinary to follow: the newest known one of the same
// major version, not newer than it (11.x: 11.8, 12.x: 12.4, 13.x and
// later: 13.0). Versions before 11 are refused.
func ParseRelease(v string) (Release, error) {
	majorS, rest, _ := strings.Cut(v, ".")
	minorS, _, _ := strings.Cut(rest, ".")
	major, err := strconv.Atoi(majorS)
	minor := 0
	if err == nil && minorS != "" {
		minor, err = strconv.Atoi(minorS)
	}
	switch {
	case err != nil || major < 0 || minor < 0:
		return 0, fmt.Errorf("CUDA version %q: want MAJOR.MINOR, such as 12.4", v)
	case major < 11:
		return 0, fmt.Errorf("CUDA version %s: the fat binaries of CUDA 11.8 and later are written", v)
	case major == 11:
		return CUDA118, nil
	case major == 12:
		return CUDA124, nil
	}
	return CUDA130, nil
}

// CompressMode is CUDA 13 fatbinary's --compress-mode.
type CompressMode string

const (
	ModeDefault CompressMode = "default" // ZSTD
	ModeSize    CompressMode = "size"    // ZSTD harder, every entry
	ModeSpeed   CompressMode = "speed"   // LZ4, mid compressor
	ModeBalance CompressMode = "balance" // as default
	ModeNone    CompressMode = "none"    // nothing compressed
)

// ParseCompressMode reads the value of --compress-mode.
func ParseCompressMode(s string) (CompressMode, error) {
	switch m := CompressMode(s); m {
	case ModeDefault, ModeSize, ModeSpeed, ModeBalance, ModeNone:
		return m, nil
	}
	return "", fmt.Errorf("--compress-mode=%s: want default, size, speed, balance or none", s)
}

// compression is how an entry of kind and size is stored under opt.
func (opt *WriteOptions) compression(kind Kind, size int64) Compression {
	mode := opt.CompressMode
	if mode == ModeNone {
		return Stored
	}
	all := opt.CompressAll || mode == ModeSize // size mode compresses cubins too
	if kind == KindELF && size > MaxCompressed ||
		!(all || !opt.NoCompress && (kind == KindPTX || opt.Debug || kind == KindELF && size > LargeCubin)) {
		return Stored
	}
	if opt.Release < CUDA130 || mode == ModeSpeed {
		return LZ4
	}
	return Zstd
}

// compress returns the payload as the release stores it with c.
func (opt *WriteOptions) compress(c Compression, b []byte) ([]byte, error) {
	switch {
	case c == Zstd:
		return compressZstd(b, opt.CompressMode == ModeSize)
	case opt.Release >= CUDA130:
		return CompressMid(b)
	}
	return Compress(b)
}

// compressZstd returns b as one single-segment ZSTD frame with its content
// size and no checksum, the frame fatbinary 13 writes: libzstd's at level
// 5, or with hard (--compress-mode=size) at fatbinarySizeLevel, both of
// which zstdexact writes byte for byte. Only where it refuses (a source
// over 2 GiB) is the frame klauspost/compress's: it decodes to the same
// image, but is other bytes than fatbinary's (docs/nvfatbin.md).
func compressZstd(b []byte, hard bool) ([]byte, error) {
	level := fatbinaryZstdLevel
	if hard {
		level = fatbinarySizeLevel
	}
	if zstdexact.Supported(level, len(b)) {
		return zstdexact.Compress(make([]byte, 0, len(b)/2+64), b, level)
	}
	enc := zstdEncoders[0]()
	if hard {
		enc = zstdEncoders[1]()
	}
	if enc.err != nil {
		return nil, enc.err
	}
	return enc.w.EncodeAll(b, make([]byte, 0, len(b)/2+64)), nil
}

// fatbinaryZstdLevel is the libzstd level of fatbinary 13's default mode.
const fatbinaryZstdLevel = 5

// fatbinarySizeLevel is the libzstd level taken for --compress-mode=size.
// The fixtures place fatbinary 13's between 18 and 22 (its frames of
// them equal libzstd's at each of those and at no lower level); 19, the
// highest level libzstd's own tool offers without --ultra, is taken.
// Where those levels differ (most images over a few KiB) only fatbinary
// itself can tell which is right.
const fatbinarySizeLevel = 19

// zstdEncoders are made once, when first used: making one costs more than
// compressing a cubin, and EncodeAll may be called concurrently.
var zstdEncoders = [2]func() encoderOrErr{
	sync.OnceValue(func() encoderOrErr { return newZstdEncoder(zstd.SpeedBetterCompression) }),
	sync.OnceValue(func() encoderOrErr { return newZstdEncoder(zstd.SpeedBestCompression) }),
}

type encoderOrErr struct {
	w   *zstd.Encoder
	err error
}

func newZstdEncoder(level zstd.EncoderLevel) encoderOrErr {
	w, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false),
		zstd.WithSingleSegment(true), zstd.WithZeroFrames(true), zstd.WithEncoderLevel(level))
	return encoderOrErr{w, err}
}
