package offloadbin

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"

	"github.com/klauspost/compress/zstd"
)

var le = binary.LittleEndian

// DefaultMaxInflatedSize is the default limit on the inflated size of a
// compressed (version 3) binary.
const DefaultMaxInflatedSize = 1 << 30

// maxStringBytes caps the metadata string bytes decoded from one binary, so
// that many string entries pointing into one long string cannot make a small
// file expand into a huge allocation.
const maxStringBytes = 64 << 20

// Option configures Read and ReadAll.
type Option func(*options)

type options struct {
	maxInflated int64
	budget      *budget.Budget
	prepaid     bool // the budget was charged for the whole section already
	spill       func() (*os.File, error)
	refuse      bool // compressed binaries are errors, found from headers
}

// WithMaxInflatedSize limits the inflated size of a compressed binary
// (default DefaultMaxInflatedSize). The declared size is checked before any
// memory is allocated, and decompression stops at the declared size.
func WithMaxInflatedSize(n int64) Option {
	return func(o *options) { o.maxInflated = n }
}

// WithBudget charges the declared inflated sizes of compressed binaries to
// b, the budget of the whole input. Without it each call to Read, ReadAll
// or ReadSection has a budget of its own of budget.DefaultLimit.
func WithBudget(b *budget.Budget) Option {
	return func(o *options) { o.budget = b }
}

// WithSpill lets a compressed binary that inflates to more than SpillSize
// bytes go to a file instead of memory: create returns an empty file, which
// the caller owns and must close once it is done with the images (their
// Open reads from it). Without it every compressed binary is inflated into
// a buffer of exactly its declared size.
func WithSpill(create func() (*os.File, error)) Option {
	return func(o *options) { o.spill = create }
}

// RefuseCompressed makes a compressed binary an error wrapping
// ErrCompressed, found from its header before anything is inflated or
// charged to a budget: for callers that cannot use one (a wrapper input
// must hold an uncompressed image), or must not inflate it (compressed
// data found inside compressed data).
func RefuseCompressed() Option {
	return func(o *options) { o.refuse = true }
}

// SpillSize is the inflated size above which WithSpill's files are used.
const SpillSize = 16 << 20

func newOptions(opts []Option) *options {
	o := &options{maxInflated: DefaultMaxInflatedSize}
	for _, fn := range opts {
		fn(o)
	}
	if o.budget == nil {
		o.budget = budget.New(0)
	}
	return o
}

// Read parses the OffloadBinary that starts at offset off of r, where size is
// the size of r. It returns the binary's images and its Size field; the next
// binary of a section, if any, starts at the next multiple of Alignment after
// off+binSize. Image bytes are not read (see Image.Open).
func Read(r io.ReaderAt, off, size int64, opts ...Option) (images []Image, binSize int64, err error) {
	return newOptions(opts).read(r, off, size, true)
}

// ReadAll parses the binaries stored back to back in r (as in an ELF
// .llvm.offloading section), each starting at a multiple of Alignment. Zero
// bytes after the last binary are accepted as padding.
func ReadAll(r io.ReaderAt, size int64, opts ...Option) ([]Image, error) {
	return ReadSection(r, 0, size, opts...)
}

// ReadSection is ReadAll for the n bytes at offset off of r, such as an ELF
// section's contents; image offsets stay absolute in r. Alignment is counted
// from off.
func ReadSection(r io.ReaderAt, off, n int64, opts ...Option) ([]Image, error) {
	o := newOptions(opts)
	if off < 0 || n < 0 || off > math.MaxInt64-n {
		return nil, truncErr(off, "section outside input", n)
	}
	end := off + n
	// Charge every compressed binary of the section before inflating any,
	// so that many bombs side by side are refused at once.
	if !o.refuse {
		if err := o.budget.Reserve(inflatedSizes(r, off, end)); err != nil {
			return nil, budgetErr("compressed binaries from", off, err)
		}
		o.prepaid = true
	}
	var all []Image
	for pos := off; pos < end; {
		zero, err := allZero(r, pos, end)
		if err != nil {
			return nil, err
		}
		if zero {
			break
		}
		images, size, err := o.read(r, pos, end, true)
		if err != nil {
			return nil, err
		}
		all = append(all, images...)
		pos = off + alignUp(pos-off+size, Alignment)
	}
	return all, nil
}

// budgetErr says where the binaries that did not fit the budget start,
// before the budget's message, which ends with how to raise it.
func budgetErr(what string, off int64, err error) error {
	return fmt.Errorf("offloadbin: %s offset %#x: %w", what, off, err)
}

// DeclaredSize adds up what the compressed binaries stored back to back
// in the size bytes of r declare they inflate to, from their headers
// alone, so that a caller reading several inputs on one budget can check
// them all before it inflates the first (as ReadAll does for one).
func DeclaredSize(r io.ReaderAt, size int64) uint64 {
	return inflatedSizes(r, 0, size)
}

// inflatedSizes adds up the declared inflated sizes of the compressed
// binaries in [off, end), walking headers only. It stops at the first
// header it cannot read: the parse that follows stops there too.
func inflatedSizes(r io.ReaderAt, off, end int64) uint64 {
	var sum uint64
	for pos := off; pos < end; {
		if zero, err := allZero(r, pos, end); err != nil || zero {
			break
		}
		h, err := readHeader(r, pos, end-pos)
		if err != nil {
			break
		}
		if h.inflated > math.MaxUint64/2-sum {
			return math.MaxUint64 / 2 // more than any budget; no wrap-around
		}
		sum += h.inflated
		pos = off + alignUp(pos-off+int64(h.size), Alignment)
	}
	return sum
}

// allZero reports whether r holds only zero bytes in [off, size).
func allZero(r io.ReaderAt, off, size int64) (bool, error) {
	buf := make([]byte, 8)
	for off < size {
		n := int64(len(buf))
		if size-off < n {
			n = size - off
		}
		if err := readAt(r, buf[:n], off); err != nil {
			return false, err
		}
		for _, c := range buf[:n] {
			if c != 0 {
				return false, nil
			}
		}
		off += n
		if len(buf) < 32<<10 {
			buf = make([]byte, 32<<10)
		}
	}
	return true, nil
}

// readAt fills b from r at off; a short read is ErrTruncated.
func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		return truncErr(off+int64(n), "short read", nil)
	}
	return err
}

// header is the decoded fixed header; field3 is EntrySize in version 1 and
// EntriesCount in later versions.
type header struct {
	version                  uint32
	size, entriesOff, field3 uint64
	inflated                 uint64
	length                   uint64 // bytes of header proper: 32 or 40
}

func readHeader(r io.ReaderAt, off, avail int64) (header, error) {
	var b [headerSizeV3]byte
	n := min(avail, int64(len(b)))
	if err := readAt(r, b[:n], off); err != nil {
		return header{}, err
	}
	if n < int64(len(Magic)) || !IsOffloadBinary(b[:n]) {
		return header{}, formatErr(off, "bad magic", nil)
	}
	if n < headerSize {
		return header{}, truncErr(off, "header truncated", nil)
	}
	h := header{
		version:    le.Uint32(b[4:]),
		size:       le.Uint64(b[8:]),
		entriesOff: le.Uint64(b[16:]),
		field3:     le.Uint64(b[24:]),
		length:     headerSize,
	}
	if h.version == 0 || h.version > MaxVersion {
		return header{}, formatErr(off+4, "unsupported version", h.version)
	}
	if h.version >= 3 {
		if n < headerSizeV3 {
			return header{}, truncErr(off, "header truncated", nil)
		}
		h.inflated = le.Uint64(b[32:])
		h.length = headerSizeV3
	}
	if h.size < h.length {
		return header{}, truncErr(off+8, "binary size smaller than header", h.size)
	}
	if h.size > uint64(avail) {
		return header{}, truncErr(off+8, "binary size past end of input", h.size)
	}
	return h, nil
}

// llvm22Checks makes, in LLVM 22's order, the checks its OffloadBinary::create
// makes of a binary, so that an input both refuse is refused with the same
// class of error (ErrFormat for what LLVM calls invalid data, ErrTruncated
// for an unexpected end of file): LLVM 22 first wants the bytes left for
// a header and an entry (72), then the magic and version 1, then Size
// within them and no smaller than an entry, EntryOffset and EntrySize
// within Size, and the entry's image and string offsets within the bytes
// left; then it parses the Size bytes again on their own, so a Size below
// 72 is invalid data and the offsets must lie within Size. Later versions
// (2 and 3), which LLVM 22 cannot read, are left to the checks that
// follow, as are the stricter ones LLVM does not make (entries overlapping
// the header, an image running past the binary, strings), which only ever
// refuse what LLVM accepts.
func llvm22Checks(r io.ReaderAt, off, avail int64) error {
	const least = headerSize + entrySize
	var b [least]byte
	n := min(avail, least)
	if err := readAt(r, b[:n], off); err != nil {
		return err
	}
	if !IsOffloadBinary(b[:n]) {
		return nil // invalid data too, said by readHeader
	}
	if n >= 8 {
		if v := le.Uint32(b[4:]); v > Version && v <= MaxVersion {
			return nil
		}
	}
	if n < least {
		return formatErr(off, "binary shorter than a header and an entry", n)
	}
	if le.Uint32(b[4:]) != Version {
		return nil // readHeader refuses the version as invalid data
	}
	size, entOff, entSize := le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:])
	if size > uint64(avail) {
		return truncErr(off+8, "binary size past end of input", size)
	}
	if size < entrySize {
		return truncErr(off+8, "binary size smaller than an entry", size)
	}
	if entOff > size-entrySize {
		return truncErr(off+16, "entries past end of binary", entOff)
	}
	if entSize > size-headerSize {
		return truncErr(off+24, "entry size past end of binary", entSize)
	}
	var e [entrySize]byte
	if err := readAt(r, e[:], off+int64(entOff)); err != nil {
		return err
	}
	strOff, imgOff := le.Uint64(e[8:]), le.Uint64(e[24:])
	for _, limit := range []uint64{uint64(avail), size} {
		if limit == size && size < least {
			return formatErr(off+8, "binary size smaller than a header and an entry", size)
		}
		if imgOff > limit {
			return truncErr(off+int64(entOff)+24, "image past end of binary", imgOff)
		}
		if strOff > limit {
			return truncErr(off+int64(entOff)+8, "string entries past end of binary", strOff)
		}
	}
	return nil
}

func (o *options) read(r io.ReaderAt, off, size int64, allowCompressed bool) ([]Image, int64, error) {
	if off < 0 || off > size {
		return nil, 0, truncErr(off, "offset outside input", nil)
	}
	if err := llvm22Checks(r, off, size-off); err != nil {
		return nil, 0, err
	}
	h, err := readHeader(r, off, size-off)
	if err != nil {
		return nil, 0, err
	}
	if h.inflated != 0 {
		if o.refuse {
			msg := fmt.Sprintf("compressed binary (declaring %d bytes inflated) refused", h.inflated)
			return nil, 0, &FormatError{Off: off + 32, Msg: msg, Err: ErrCompressed}
		}
		if !allowCompressed {
			return nil, 0, formatErr(off+32, "nested compression", h.inflated)
		}
		images, err := o.readCompressed(r, off, h)
		return images, int64(h.size), err
	}
	count := uint64(1)
	if h.version == 1 {
		// EntrySize is otherwise unused; LLVM 22 bounds it like this.
		if h.field3 > h.size-headerSize {
			return nil, 0, truncErr(off+24, "entry size past end of binary", h.field3)
		}
	} else {
		count = h.field3
	}
	p := &parser{r: r, base: off, size: h.size, version: h.version, budget: maxStringBytes}
	images, err := p.entries(h, count)
	return images, int64(h.size), err
}

// parser decodes the entries of one uncompressed binary. All offsets in the
// file are relative to base and must lie within size.
type parser struct {
	r       io.ReaderAt
	base    int64
	size    uint64
	version uint32
	budget  int64
	cache   map[uint64]string
}

func (p *parser) entries(h header, count uint64) ([]Image, error) {
	if h.entriesOff < h.length {
		return nil, formatErr(p.base+16, "entries overlap header", h.entriesOff)
	}
	if h.entriesOff > p.size || count > (p.size-h.entriesOff)/entrySize {
		return nil, truncErr(p.base+16, "entries past end of binary", h.entriesOff)
	}
	images := make([]Image, 0, min(count, 64))
	var b [entrySize]byte
	for i := uint64(0); i < count; i++ {
		eoff := p.base + int64(h.entriesOff+i*entrySize)
		if err := readAt(p.r, b[:], eoff); err != nil {
			return nil, err
		}
		im, err := p.entry(b[:], eoff)
		if err != nil {
			return nil, err
		}
		im.Version, im.Index = p.version, int(i)
		im.BinaryOffset, im.BinarySize = p.base, int64(p.size)
		images = append(images, im)
	}
	return images, nil
}

func (p *parser) entry(b []byte, eoff int64) (Image, error) {
	im := Image{
		ImageKind:   ImageKind(le.Uint16(b[0:])),
		OffloadKind: OffloadKind(le.Uint16(b[2:])),
		Flags:       le.Uint32(b[4:]),
		src:         p.r,
	}
	strOff, numStr := le.Uint64(b[8:]), le.Uint64(b[16:])
	imgOff, imgSize := le.Uint64(b[24:]), le.Uint64(b[32:])
	if imgOff > p.size || imgSize > p.size-imgOff {
		return im, truncErr(eoff+24, "image past end of binary", imgOff)
	}
	im.Offset, im.Size = p.base+int64(imgOff), int64(imgSize)
	seSize := uint64(stringEntrySizeV2)
	if p.version == 1 {
		seSize = stringEntrySizeV1
	}
	if strOff > p.size || numStr > (p.size-strOff)/seSize {
		return im, truncErr(eoff+8, "string entries past end of binary", strOff)
	}
	var err error
	im.Strings, err = p.strings(strOff, numStr, seSize)
	return im, err
}

func (p *parser) strings(off, n, seSize uint64) ([]KV, error) {
	kvs := make([]KV, 0, min(n, 64))
	var b [stringEntrySizeV2]byte
	for i := uint64(0); i < n; i++ {
		at := p.base + int64(off+i*seSize)
		if err := readAt(p.r, b[:seSize], at); err != nil {
			return nil, err
		}
		key, err := p.cstring(le.Uint64(b[0:]), at)
		if err != nil {
			return nil, err
		}
		var val string
		if p.version == 1 {
			val, err = p.cstring(le.Uint64(b[8:]), at+8)
		} else {
			val, err = p.sized(le.Uint64(b[8:]), le.Uint64(b[16:]), at+8)
		}
		if err != nil {
			return nil, err
		}
		kvs = append(kvs, KV{key, val})
	}
	return kvs, nil
}

func (p *parser) spend(n int64, field int64) error {
	p.budget -= n
	if p.budget < 0 {
		return &FormatError{Off: field, Msg: "metadata strings too large", Err: ErrTooLarge}
	}
	return nil
}

// cstring reads the NUL-terminated string at rel; the NUL must lie within
// the binary. field is the offset of the field that pointed here.
func (p *parser) cstring(rel uint64, field int64) (string, error) {
	if s, ok := p.cache[rel]; ok {
		return s, nil
	}
	if rel >= p.size {
		return "", truncErr(field, "string offset past end of binary", rel)
	}
	var out []byte
	chunk := uint64(64)
	for pos := rel; ; {
		if pos >= p.size {
			return "", truncErr(field, "unterminated string", rel)
		}
		n := min(chunk, p.size-pos)
		if err := p.spend(int64(n), field); err != nil {
			return "", err
		}
		buf := make([]byte, n)
		if err := readAt(p.r, buf, p.base+int64(pos)); err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			out = append(out, buf[:i]...)
			break
		}
		out = append(out, buf...)
		pos += n
		chunk = min(chunk*2, 64<<10)
	}
	if p.cache == nil {
		p.cache = map[uint64]string{}
	}
	s := string(out)
	p.cache[rel] = s
	return s, nil
}

// sized reads a version 2+ value of explicit size.
func (p *parser) sized(rel, n uint64, field int64) (string, error) {
	if rel > p.size || n > p.size-rel {
		return "", truncErr(field, "string value past end of binary", rel)
	}
	if err := p.spend(int64(n), field); err != nil {
		return "", err
	}
	buf := make([]byte, n)
	if err := readAt(p.r, buf, p.base+int64(rel)); err != nil {
		return "", err
	}
	return string(buf), nil
}

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// readCompressed inflates a version 3 binary whose body (everything after the
// first EntriesOffset bytes) is one zlib or zstd stream, then parses the
// restored binary. It goes into a buffer of exactly the declared size, or,
// when large and the caller allows it, into a spill file.
func (o *options) readCompressed(r io.ReaderAt, off int64, h header) ([]Image, error) {
	if h.entriesOff < h.length || h.entriesOff > h.size {
		return nil, truncErr(off+16, "entries offset outside binary", h.entriesOff)
	}
	if h.inflated < h.entriesOff {
		return nil, truncErr(off+32, "inflated size smaller than header", h.inflated)
	}
	if h.inflated > uint64(o.maxInflated) {
		return nil, &FormatError{Off: off + 32, Msg: "inflated size above limit", Val: h.inflated, Err: ErrTooLarge}
	}
	if !o.prepaid {
		if err := o.budget.Reserve(h.inflated); err != nil {
			return nil, budgetErr("compressed binary at", off, err)
		}
	}
	head := make([]byte, h.entriesOff)
	if err := readAt(r, head, off); err != nil {
		return nil, err
	}
	// The restored header describes the inflated, uncompressed binary.
	le.PutUint64(head[8:], h.inflated)
	le.PutUint64(head[32:], 0)

	restored, err := o.inflateTo(int64(h.inflated), head)
	if err != nil {
		return nil, err
	}
	body := int64(h.inflated - h.entriesOff)
	src := io.NewSectionReader(r, off+int64(h.entriesOff), int64(h.size-h.entriesOff))
	n, err := inflateBody(restored.w, src, body)
	if err != nil {
		return nil, &FormatError{Off: off + int64(h.entriesOff), Msg: "bad compressed data: " + err.Error(), Err: ErrFormat}
	}
	if n != body {
		return nil, formatErr(off+32, fmt.Sprintf("inflated body is %d bytes, header says", n), body)
	}
	images, _, err := o.read(restored.r, 0, int64(h.inflated), false)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, &FormatError{Off: off, Msg: fmt.Sprintf("compressed binary: %s at inflated offset %#x", fe.Msg, fe.Off), Val: fe.Val, Err: fe.Err}
		}
		return nil, err
	}
	for i := range images {
		images[i].Compressed = true
		images[i].BinaryOffset, images[i].BinarySize = off, int64(h.size)
	}
	return images, nil
}

// inflated is where a compressed binary is restored: a reader over it and a
// writer that fills it from the start.
type inflated struct {
	r io.ReaderAt
	w io.Writer
}

// inflateTo prepares size bytes of room that start with head: a spill file
// for large binaries when the caller gave one, else an exact-size buffer.
func (o *options) inflateTo(size int64, head []byte) (inflated, error) {
	if o.spill != nil && size > SpillSize {
		f, err := o.spill()
		if err != nil {
			return inflated{}, err
		}
		if _, err := f.Write(head); err != nil {
			return inflated{}, err
		}
		return inflated{r: f, w: f}, nil
	}
	buf := make([]byte, len(head), size)
	copy(buf, head)
	w := &fixedBuffer{buf: buf}
	return inflated{r: w, w: w}, nil
}

// fixedBuffer is a buffer of fixed capacity: writes past it fail instead of
// growing it.
type fixedBuffer struct{ buf []byte }

func (b *fixedBuffer) Write(p []byte) (int, error) {
	if len(p) > cap(b.buf)-len(b.buf) {
		return 0, io.ErrShortBuffer
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *fixedBuffer) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(b.buf).ReadAt(p, off)
}

// inflateBody decompresses src into w and returns how many bytes it made:
// at most body, or body+1 if the stream holds more than declared.
func inflateBody(w io.Writer, src *io.SectionReader, body int64) (int64, error) {
	dec, closeDec, err := newDecompressor(src, body)
	if err != nil {
		return 0, err
	}
	defer closeDec()
	n, err := io.Copy(w, io.LimitReader(dec, body))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return n, err
	}
	var extra [1]byte
	if k, _ := io.ReadFull(dec, extra[:]); k > 0 {
		n++
	}
	return n, nil
}

func newDecompressor(src *io.SectionReader, body int64) (io.Reader, func(), error) {
	var magic [4]byte
	if n, _ := src.ReadAt(magic[:], 0); n == 4 && bytes.Equal(magic[:], zstdMagic) {
		// The output is bounded by the declared (and limited) size; the
		// window allowance only has to admit frames a real encoder writes,
		// which may declare a window larger than a small body.
		d, err := zstd.NewReader(src,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(max(body, 8<<20))))
		if err != nil {
			return nil, nil, err
		}
		return d, d.Close, nil
	}
	z, err := zlib.NewReader(src)
	if err != nil {
		return nil, nil, err
	}
	return z, func() { z.Close() }, nil
}
