package bundler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

// source is an opened input: random access plus its size. Inputs that are
// not regular files (stdin, pipes) are spooled to a temporary file first so
// that every reader can work on an io.ReaderAt without holding data in memory
// (container.Open).
type source struct {
	name string
	r    io.ReaderAt
	size int64
	undo []func()
	// check, for a decompressed part whose MD5 comparison was deferred,
	// waits for it (see checkParts); nil otherwise.
	check func() error
}

func (s *source) Close() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
	s.undo = nil
}

// reader returns a fresh sequential reader over the whole source.
func (s *source) reader() io.Reader { return io.NewSectionReader(s.r, 0, s.size) }

// prefix returns up to n leading bytes, for format detection.
func (s *source) prefix(n int) []byte {
	if int64(n) > s.size {
		n = int(s.size)
	}
	b := make([]byte, n)
	k, _ := s.r.ReadAt(b, 0)
	return b[:k]
}

// openSource opens an input (container.Open), its errors in LLVM's words.
func openSource(name, tmpDir string) (*source, error) {
	c, err := container.Open(name, tmpDir)
	if err != nil {
		return nil, fileError(name, err)
	}
	return &source{name: c.Name, r: c.R, size: c.Size, undo: []func(){func() { c.Close() }}}, nil
}

// decompressed returns the bundles inside src: src itself when it is not a
// CCOB, otherwise the decompressed contents of each CCOB in it. CCOBs may be
// concatenated (as in .hip_fatbin sections) and followed by zero padding; any
// other trailing data is an error rather than silently dropped.
func decompressed(src *source, cfg *Config) ([]*source, error) {
	return decompressedAs(src, cfg, decompressInput)
}

// decompressInput is LLVM's prefix for errors decompressing an input.
const decompressInput = "Failed to decompress input"

// decompressedDeferred is decompressed, except that the MD5 comparisons of
// the parts may still be running when it returns (the hash costs as much as
// everything else in an unbundle, so it goes on while entries are copied
// out). The caller must call checkParts before committing anything made
// from the parts, and should report its error before any other.
func decompressedDeferred(src *source, cfg *Config) ([]*source, error) {
	return decompressParts(src, cfg, decompressInput, !cfg.Verbose)
}

// checkParts waits for the deferred MD5 comparisons of parts and returns
// the first mismatch, worded as decompressed would have.
func checkParts(parts []*source) error {
	for _, p := range parts {
		if p.check != nil {
			if err := p.check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashFirst returns the parts' hash mismatch, if any, instead of err: a
// corrupt payload explains whatever else went wrong.
func hashFirst(parts []*source, err error) error {
	if herr := checkParts(parts); herr != nil {
		return herr
	}
	return err
}

// decompressedAs is decompressed with LLVM's message prefix for the kind
// of input ("Failed to decompress code object" for archive members).
func decompressedAs(src *source, cfg *Config, prefix string) ([]*source, error) {
	return decompressParts(src, cfg, prefix, false)
}

func decompressParts(src *source, cfg *Config, prefix string, deferCheck bool) ([]*source, error) {
	if !ccob.IsCompressed(src.prefix(8)) {
		if cfg.Verbose && src.size >= 8 {
			// LLVM's CompressedOffloadBundle::decompress says so for every
			// input (and archive member) without the CCOB magic, unless it
			// is shorter than the magic, version and method.
			fmt.Fprintf(cfg.Stderr, "Uncompressed bundle.\n")
		}
		return []*source{src}, nil
	}
	opt := container.DecompressOptions{TempDir: cfg.TempDir, CCOB: ccobOptions(cfg), Defer: deferCheck}
	if cfg.Verbose {
		opt.Decoded = func(r *container.Record) {
			printDecompressed(cfg, r.Header, uint64(r.Used)-uint64(r.Header.HeaderSize), r.Took, opt.CCOB.SkipHashCheck)
		}
	}
	recs, err := container.Decompress(&container.Source{Name: src.name, R: src.r, Size: src.size}, opt)
	if err != nil {
		return nil, recordsError(src, prefix, err)
	}
	parts := make([]*source, len(recs))
	for i, r := range recs {
		parts[i] = &source{r: r.R, size: r.Size, undo: []func(){r.Close}}
		if deferCheck {
			parts[i].check = wrapCheck(src.name, prefix, r.Check)
		}
	}
	return parts, nil
}

// recordsError words container.Decompress's errors: a record that could
// not be decoded, or data after one, as a failed decompression; an I/O
// error as one of the file.
func recordsError(src *source, prefix string, err error) error {
	if re := (*container.RecordError)(nil); errors.As(err, &re) {
		return decompressError(src, re.Offset, prefix, re.Err)
	}
	if t := (*container.TrailingError)(nil); errors.As(err, &t) {
		return inFile(src.name, "", errorf("%s: %v", prefix, err))
	}
	return fileError(src.name, err)
}

// decompressError reports that the CCOB at off in src could not be
// decompressed in LLVM's words ("Failed to decompress input: <reason>"),
// naming the file after them: LLVM does not name it. LLVM 22 reports an
// unknown version as a header too small (it finds no header size for it);
// so does this, followed by the version. LLVM does not read the total
// size: it decompresses whatever follows the header, so a CCOB cut short
// fails in the codec; ours checks the size first, and says so after the
// codec failure's words.
func decompressError(src *source, off int64, prefix string, err error) error {
	switch {
	case errors.Is(err, ccob.ErrUnknownVersion):
		v := make([]byte, 2)
		src.r.ReadAt(v, off+4)
		err = fmt.Errorf("%w: unknown version %d", ccob.ErrHeaderTooSmall, binary.LittleEndian.Uint16(v))
	case errors.Is(err, ccob.ErrTotalSize):
		err = fmt.Errorf("%w: %w", ccob.ErrDecompress, err)
	}
	return inFile(src.name, "", fmt.Errorf("%s: %w", prefix, err))
}

// printDecompressed writes -verbose's report of a decompression, LLVM's
// lines in LLVM's order. The hash was checked (a mismatch is an error here,
// where LLVM prints "Hashes match: No" and goes on), so the recalculated
// hash is the stored one; --skip-hash-check says that it was not checked.
func printDecompressed(cfg *Config, h ccob.Header, compressed uint64, took time.Duration, skipHash bool) {
	w := cfg.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	if h.Version >= 2 {
		fmt.Fprintf(w, "Total file size (from header): %s bytes\n", commas(h.TotalSize))
	}
	fmt.Fprintf(w, "Decompression method: %s\n", h.Method)
	fmt.Fprintf(w, "Size before decompression: %s bytes\n", commas(compressed))
	fmt.Fprintf(w, "Size after decompression: %s bytes\n", commas(h.UncompressedSize))
	if compressed > 0 && h.UncompressedSize > 0 {
		rate := float64(h.UncompressedSize) / float64(compressed)
		fmt.Fprintf(w, "Compression rate: %.2f\nCompression ratio: %.2f%%\n", rate, 100/rate)
	}
	fmt.Fprintf(w, "Decompression speed: %s\n", speed(h.UncompressedSize, took))
	fmt.Fprintf(w, "Stored hash: %s\n", hashHex(h.Hash))
	if skipHash {
		fmt.Fprintf(w, "Hashes match: not checked (--skip-hash-check)\n")
		return
	}
	fmt.Fprintf(w, "Recalculated hash: %s\nHashes match: Yes\n", hashHex(h.Hash))
}

// describe renders an OS error the way LLVM prints a std::error_code:
// strerror's text, capitalised.
func describe(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return capitalize(errno.Error())
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return capitalize(pe.Err.Error())
	}
	return err.Error()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// commas formats n with thousands separators, as LLVM's verbose output.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
