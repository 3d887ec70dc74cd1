package bundle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// Magic starts every binary bundle. It has no terminating NUL.
const Magic = "__CLANG_OFFLOAD_BUNDLE__"

// Binary layout: Magic, u64 entry count, then per entry u64 offset, u64 size,
// u64 ID length and the ID bytes; all integers little-endian.
const (
	countOff       = int64(len(Magic))
	prefixSize     = countOff + 8 // magic + entry count
	entryFixedSize = 24           // offset, size, id length
)

// Entry describes one payload of a binary bundle.
type Entry struct {
	ID     string
	Offset int64 // from the start of the bundle
	Size   int64
}

// Open returns a reader for the entry's payload in r, the bundle the entry
// was read from. Each call returns an independent reader.
func (e Entry) Open(r io.ReaderAt) *io.SectionReader {
	return io.NewSectionReader(r, e.Offset, e.Size)
}

// IsBinary reports whether b starts with Magic.
func IsBinary(b []byte) bool {
	return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic
}

// ReadBinary parses the header of the binary bundle held in the first size
// bytes of r and returns its entries in file order. Payloads are not read.
//
// Unlike LLVM, which silently treats a malformed header as "no bundles" (or
// crashes), ReadBinary rejects any inconsistency: a count larger than the
// input can hold, an ID that is empty, over MaxIDLength or repeated, and a
// payload that starts inside the header or ends past size. Errors are
// *FormatError; input without Magic yields ErrNotBundle.
func ReadBinary(r io.ReaderAt, size int64) ([]Entry, error) {
	if size < int64(len(Magic)) {
		return nil, formatErr(0, ErrNotBundle, "input of %d bytes is shorter than the magic", max(size, 0))
	}
	var prefix [prefixSize]byte
	n, err := r.ReadAt(prefix[:min(size, prefixSize)], 0)
	if int64(n) < min(size, prefixSize) {
		return nil, readErr(0, err)
	}
	if string(prefix[:len(Magic)]) != Magic {
		return nil, formatErr(0, ErrNotBundle, "missing magic %q", Magic)
	}
	if size < prefixSize {
		return nil, formatErr(countOff, ErrTruncated, "input ends inside the entry count")
	}
	count := binary.LittleEndian.Uint64(prefix[countOff:])
	if limit := uint64(size-prefixSize) / entryFixedSize; count > limit {
		return nil, formatErr(countOff, ErrTruncated,
			"entry count %d exceeds the %d entries a %d-byte input can hold", count, limit, size)
	}
	entries, end, err := readEntries(r, size, int(count))
	if err != nil {
		return nil, err
	}
	if err := checkPayloads(entries, end, size); err != nil {
		return nil, err
	}
	return entries, nil
}

// readEntries reads count entry records starting after the prefix and
// returns them with the offset where the header ends. Offsets and sizes are
// checked later, once the header end is known.
func readEntries(r io.ReaderAt, size int64, count int) ([]Entry, int64, error) {
	entries := make([]Entry, 0, min(count, 1024))
	seen := make(map[string]struct{}, min(count, 1024))
	pos := prefixSize
	for i := range count {
		var rec [entryFixedSize]byte
		if size-pos < entryFixedSize {
			return nil, 0, formatErr(pos, ErrTruncated, "entry %d: input ends inside the entry record", i)
		}
		if n, err := r.ReadAt(rec[:], pos); n < len(rec) {
			return nil, 0, readErr(pos, err)
		}
		off := binary.LittleEndian.Uint64(rec[0:])
		sz := binary.LittleEndian.Uint64(rec[8:])
		idLen := binary.LittleEndian.Uint64(rec[16:])
		idPos := pos + entryFixedSize
		switch {
		case idLen == 0:
			return nil, 0, formatErr(pos+16, ErrBadEntry, "entry %d: empty id", i)
		case idLen > MaxIDLength:
			return nil, 0, formatErr(pos+16, ErrBadEntry, "entry %d: id length %d exceeds %d", i, idLen, MaxIDLength)
		case idLen > uint64(size-idPos):
			return nil, 0, formatErr(pos+16, ErrTruncated, "entry %d: id of %d bytes runs past the end of the input (%#x)", i, idLen, size)
		}
		id := make([]byte, idLen)
		if n, err := r.ReadAt(id, idPos); n < len(id) {
			return nil, 0, readErr(idPos, err)
		}
		if _, dup := seen[string(id)]; dup {
			return nil, 0, formatErr(idPos, ErrDuplicateID, "entry %d: duplicate id %q", i, id)
		}
		seen[string(id)] = struct{}{}
		if off > math.MaxInt64 || sz > math.MaxInt64 {
			return nil, 0, formatErr(pos, ErrTruncated, "entry %d (%s): payload %#x+%#x past the end of the input (%#x)", i, id, off, sz, size)
		}
		entries = append(entries, Entry{ID: string(id), Offset: int64(off), Size: int64(sz)})
		pos = idPos + int64(idLen)
	}
	return entries, pos, nil
}

// checkPayloads verifies each payload lies between the header end and size.
// Errors point at the entry's record.
func checkPayloads(entries []Entry, headerEnd, size int64) error {
	pos := prefixSize
	for i, e := range entries {
		switch {
		case e.Offset < headerEnd:
			return formatErr(pos, ErrBadEntry, "entry %d (%s): payload offset %#x inside the header (ends at %#x)", i, e.ID, e.Offset, headerEnd)
		case e.Offset > size || e.Size > size-e.Offset:
			return formatErr(pos, ErrTruncated, "entry %d (%s): payload %#x+%#x past the end of the input (%#x)", i, e.ID, e.Offset, e.Size, size)
		}
		pos += entryFixedSize + int64(len(e.ID))
	}
	return nil
}

// readErr turns a short ReadAt into a FormatError; io.EOF means the ReaderAt
// holds less than the size the caller claimed.
func readErr(off int64, err error) error {
	if err == nil || err == io.EOF {
		return formatErr(off, ErrTruncated, "input shorter than its stated size")
	}
	return fmt.Errorf("bundle: reading at offset %#x: %w", off, err)
}

// Layout computes where LLVM places each payload: the header ends at
// 32 + Σ(24 + len(id)); each payload starts at the previous end rounded up
// to a multiple of align (any align >= 1, not only powers of two). It
// returns the payload offsets and the total bundle size.
func Layout(ids []string, sizes []int64, align int64) (offsets []int64, total int64, err error) {
	if len(ids) != len(sizes) {
		return nil, 0, fmt.Errorf("bundle: %d ids but %d sizes", len(ids), len(sizes))
	}
	if align < 1 {
		return nil, 0, fmt.Errorf("%w (got %d)", ErrBadAlign, align)
	}
	h := prefixSize
	for _, id := range ids {
		if len(id) > MaxIDLength {
			return nil, 0, fmt.Errorf("%w: id length %d exceeds %d", ErrBadID, len(id), MaxIDLength)
		}
		h += entryFixedSize + int64(len(id)) // cannot overflow: bounded by memory holding ids
	}
	offsets = make([]int64, len(ids))
	for i, sz := range sizes {
		if sz < 0 {
			return nil, 0, fmt.Errorf("bundle: entry %d: negative size %d", i, sz)
		}
		var ok bool
		if h, ok = alignUp(h, align); !ok || sz > math.MaxInt64-h {
			return nil, 0, fmt.Errorf("%w: entry %d", ErrTooLarge, i)
		}
		offsets[i] = h
		h += sz
	}
	return offsets, h, nil
}

// alignUp rounds x up to a multiple of a, reporting false on overflow.
func alignUp(x, a int64) (int64, bool) {
	r := x % a
	if r == 0 {
		return x, true
	}
	if a-r > math.MaxInt64-x {
		return 0, false
	}
	return x + (a - r), true
}

// WriteBinary writes a binary bundle to w: the header, then for each entry
// zero padding up to its offset (see Layout) and exactly sizes[i] bytes
// copied from srcs[i]. There is no trailing padding. The output is
// byte-identical to clang-offload-bundler-22 for the same IDs, inputs and
// -bundle-align. A source shorter or longer than its size is an error
// (ErrSourceSize), detected after the bytes before it were written.
func WriteBinary(w io.Writer, ids []string, sizes []int64, srcs []io.Reader, align int64) error {
	if len(srcs) != len(ids) {
		return fmt.Errorf("bundle: %d ids but %d sources", len(ids), len(srcs))
	}
	if err := checkIDs(ids, false); err != nil {
		return err
	}
	offsets, _, err := Layout(ids, sizes, align)
	if err != nil {
		return err
	}
	hdr := binaryHeader(ids, sizes, offsets)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	pos := int64(len(hdr))
	for i := range ids {
		if err := writeZeros(w, offsets[i]-pos); err != nil {
			return err
		}
		if err := copyExact(w, srcs[i], sizes[i]); err != nil {
			return fmt.Errorf("entry %d (%s): %w", i, ids[i], err)
		}
		pos = offsets[i] + sizes[i]
	}
	return nil
}

func binaryHeader(ids []string, sizes, offsets []int64) []byte {
	n := int(prefixSize)
	for _, id := range ids {
		n += entryFixedSize + len(id)
	}
	b := make([]byte, 0, n)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(ids)))
	for i, id := range ids {
		b = binary.LittleEndian.AppendUint64(b, uint64(offsets[i]))
		b = binary.LittleEndian.AppendUint64(b, uint64(sizes[i]))
		b = binary.LittleEndian.AppendUint64(b, uint64(len(id)))
		b = append(b, id...)
	}
	return b
}

// checkIDs rejects IDs a reader would refuse: empty, too long, repeated and,
// for text bundles, holding a newline (the ID line ends at the first one).
func checkIDs(ids []string, text bool) error {
	seen := make(map[string]struct{}, len(ids))
	for i, id := range ids {
		switch {
		case id == "":
			return fmt.Errorf("%w: entry %d: empty", ErrBadID, i)
		case len(id) > MaxIDLength:
			return fmt.Errorf("%w: entry %d: length %d exceeds %d", ErrBadID, i, len(id), MaxIDLength)
		case text && strings.IndexByte(id, '\n') >= 0:
			return fmt.Errorf("%w: entry %d: %q holds a newline", ErrBadID, i, id)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("%w: entry %d: %q", ErrDuplicateID, i, id)
		}
		seen[id] = struct{}{}
	}
	return nil
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

// zeros is read-only padding source.
var zeros [32 << 10]byte

func writeZeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
