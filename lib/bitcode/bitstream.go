package bitcode

import (
	"errors"
	"fmt"
	"io"
)

// Fixed abbreviation IDs and widths of the bitstream container
// (llvm/docs/BitCodeFormat.rst).
const (
	abbrevEndBlock      = 0
	abbrevEnterSubblock = 1
	abbrevDefine        = 2
	abbrevUnabbrev      = 3
	firstUserAbbrev     = 4

	topLevelWidth = 2  // abbreviation ID width outside any block
	blockIDWidth  = 8  // VBR width of a block ID
	codeLenWidth  = 4  // VBR width of a block's abbreviation ID width
	blockSizeBits = 32 // the length word, in 32-bit words
	maxChunk      = 32 // widest Fixed/VBR field LLVM accepts (MaxChunkSize)
)

// Abbreviation operand encodings as stored in DEFINE_ABBREV, plus opLiteral.
const (
	opLiteral = 0
	opFixed   = 1
	opVBR     = 2
	opArray   = 3
	opChar6   = 4
	opBlob    = 5
)

// maxAbbrevOps caps the operands of all abbreviations defined in one read.
// Real files define a few dozen; the cap keeps hostile input from turning
// each bit into a 16-byte operand.
const maxAbbrevOps = 1 << 16

// windowSize is how much of the stream bitReader caches per ReadAt.
const windowSize = 4096

// bitReader reads LLVM's bit order (fields fill each byte from bit 0 up)
// from r[base:base+size] through a small cache, so only the parts of the
// file that are walked are read.
type bitReader struct {
	r      io.ReaderAt
	base   int64  // file offset of stream byte 0
	size   int64  // stream length in bytes, a multiple of 4
	pos    uint64 // next bit to read
	win    []byte // cached stream bytes from winOff
	winOff int64
}

func (b *bitReader) endBit() uint64 { return uint64(b.size) * 8 }
func (b *bitReader) atEnd() bool    { return b.pos >= b.endBit() }

// off is the file offset of the byte holding bit p, for errors.
func (b *bitReader) off(p uint64) int64 { return b.base + int64(p/8) }

func (b *bitReader) errorf(p uint64, val any, format string, args ...any) error {
	return &FormatError{Off: b.off(p), Msg: fmt.Sprintf(format, args...), Val: val}
}

func (b *bitReader) byteAt(i int64) (byte, error) {
	if i < b.winOff || i >= b.winOff+int64(len(b.win)) {
		if b.win == nil {
			b.win = make([]byte, windowSize)
		}
		b.win = b.win[:min(windowSize, b.size-i)]
		n, err := b.r.ReadAt(b.win, b.base+i)
		if n < len(b.win) {
			b.win = b.win[:0]
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, fmt.Errorf("bitcode: reading at offset 0x%x: %w", b.base+i, err)
		}
		b.winOff = i
	}
	return b.win[i-b.winOff], nil
}

// read returns the next n (at most 64) bits.
func (b *bitReader) read(n uint) (uint64, error) {
	if uint64(n) > b.endBit()-min(b.pos, b.endBit()) {
		return 0, b.errorf(b.pos, nil, "unexpected end of bitstream reading %d bits", n)
	}
	var v uint64
	for got := uint(0); got < n; {
		c, err := b.byteAt(int64(b.pos / 8))
		if err != nil {
			return 0, err
		}
		shift := uint(b.pos % 8)
		take := min(8-shift, n-got)
		v |= uint64(c>>shift) & (1<<take - 1) << got
		got += take
		b.pos += uint64(take)
	}
	return v, nil
}

// readVBR reads a variable-width integer of n-bit chunks, failing like
// LLVM's ReadVBR/ReadVBR64 once the value would pass limit bits; bits
// shifted past 64 are dropped as C++ drops them.
func (b *bitReader) readVBR(n uint, limit uint) (uint64, error) {
	start := b.pos
	hi := uint64(1) << (n - 1)
	var v uint64
	for shift := uint(0); ; shift += n - 1 {
		if shift >= limit {
			return 0, b.errorf(start, nil, "unterminated VBR")
		}
		piece, err := b.read(n)
		if err != nil {
			return 0, err
		}
		v |= (piece & (hi - 1)) << shift
		if piece&hi == 0 {
			if limit == 32 {
				v = uint64(uint32(v))
			}
			return v, nil
		}
	}
}

func (b *bitReader) vbr32(n uint) (uint32, error) {
	v, err := b.readVBR(n, 32)
	return uint32(v), err
}

func (b *bitReader) vbr64(n uint) (uint64, error) { return b.readVBR(n, 64) }

// align32 skips to the next 32-bit boundary (SkipToFourByteBoundary).
func (b *bitReader) align32() { b.pos = (b.pos + 31) &^ 31 }

type abbrevOp struct {
	enc uint8  // opLiteral..opBlob
	val uint64 // literal value, or Fixed/VBR width
}

// abbrev is a DEFINE_ABBREV prepared for reading: literals after the code
// are dropped (they read no bits), so every operand left costs at least
// one bit and a record costs time in proportion to its size.
type abbrev struct {
	code abbrevOp
	ops  []abbrevOp // an opArray is followed by its element operand
	bad  string     // why a record using it fails, if it must
}

type scope struct {
	width   uint
	abbrevs []abbrev
}

// cursor walks blocks and records as llvm::BitstreamCursor does, without a
// BLOCKINFO block: the top-level walk never reads one, so blocks entered
// from it start with no abbreviations.
type cursor struct {
	bitReader
	width   uint     // abbreviation ID width of the current block
	abbrevs []abbrev // abbreviations defined in the current block
	outer   []scope
	nops    int // abbreviation operands defined so far
	// text, when not nil, collects the operands of the records read, as
	// bytes, up to maxText of them: the characters of string records.
	text *[]byte
}

// maxText bounds what one string record yields.
const maxText = 4096

// keep adds an operand to the text being collected.
func (c *cursor) keep(v uint64) {
	if c.text != nil && len(*c.text) < maxText {
		*c.text = append(*c.text, byte(v))
	}
}

// Entry kinds returned by advance.
const (
	entryEndBlock = iota
	entrySubBlock
	entryRecord
)

// advance returns the next entry of the current block, defining any
// abbreviations on the way. For a sub-block it has read the block ID; for a
// record, id is the abbreviation ID.
func (c *cursor) advance() (kind int, id uint64, err error) {
	for {
		if c.atEnd() {
			return 0, 0, c.errorf(c.pos, nil, "malformed block: unexpected end of bitstream")
		}
		p := c.pos
		code, err := c.read(c.width)
		if err != nil {
			return 0, 0, err
		}
		switch code {
		case abbrevEndBlock:
			if err := c.endBlock(p); err != nil {
				return 0, 0, err
			}
			return entryEndBlock, 0, nil
		case abbrevEnterSubblock:
			id, err := c.vbr32(blockIDWidth)
			return entrySubBlock, uint64(id), err
		case abbrevDefine:
			if err := c.defineAbbrev(); err != nil {
				return 0, 0, err
			}
		default:
			return entryRecord, code, nil
		}
	}
}

func (c *cursor) endBlock(p uint64) error {
	if len(c.outer) == 0 {
		return c.errorf(p, nil, "malformed block: END_BLOCK outside any block")
	}
	c.align32()
	s := c.outer[len(c.outer)-1]
	c.outer = c.outer[:len(c.outer)-1]
	c.width, c.abbrevs = s.width, s.abbrevs
	return nil
}

// enterBlock enters the sub-block whose ID advance just returned.
func (c *cursor) enterBlock() error {
	p := c.pos
	width, err := c.vbr32(codeLenWidth)
	if err != nil {
		return err
	}
	if width > maxChunk {
		return c.errorf(p, width, "abbreviation ID width")
	}
	c.align32()
	if _, err := c.read(blockSizeBits); err != nil {
		return err
	}
	if width == 0 {
		return c.errorf(p, width, "abbreviation ID width")
	}
	if c.atEnd() {
		return c.errorf(c.pos, nil, "block starts at end of bitstream")
	}
	c.outer = append(c.outer, scope{c.width, c.abbrevs})
	c.width, c.abbrevs = uint(width), nil
	return nil
}

// skipBlock jumps over the sub-block whose ID advance just returned, using
// its length word.
func (c *cursor) skipBlock() error {
	if _, err := c.vbr32(codeLenWidth); err != nil {
		return err
	}
	c.align32()
	p := c.pos
	words, err := c.read(blockSizeBits)
	if err != nil {
		return err
	}
	if c.atEnd() {
		return c.errorf(c.pos, nil, "block starts at end of bitstream")
	}
	end := c.pos + words*32
	if end > c.endBit() {
		return c.errorf(p, words, "block length (32-bit words) past end of bitstream:")
	}
	c.pos = end
	return nil
}

func (c *cursor) defineAbbrev() error {
	p := c.pos
	n, err := c.vbr32(5)
	if err != nil {
		return err
	}
	var ops []abbrevOp
	for range n {
		if c.nops++; c.nops > maxAbbrevOps {
			return c.errorf(p, nil, "more than %d abbreviation operands", maxAbbrevOps)
		}
		op, err := c.readAbbrevOp()
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return c.errorf(p, nil, "abbreviation with no operands")
	}
	c.abbrevs = append(c.abbrevs, prepare(ops))
	return nil
}

// prepare checks ops as readRecord would on each use and drops literals.
func prepare(ops []abbrevOp) abbrev {
	a := abbrev{code: ops[0]}
	switch ops[0].enc {
	case opArray, opBlob:
		a.bad = "abbreviation starts with an array or a blob"
	}
	for i := 1; i < len(ops); i++ {
		switch ops[i].enc {
		case opLiteral:
			continue
		case opArray:
			if i+2 != len(ops) {
				a.bad = "array operand not second to last"
				return a
			}
			switch ops[i+1].enc {
			case opFixed, opVBR, opChar6:
			default:
				a.bad = "array element is not a scalar encoding"
				return a
			}
			a.ops = append(a.ops, ops[i], ops[i+1])
			return a
		}
		a.ops = append(a.ops, ops[i])
	}
	return a
}

func (c *cursor) readAbbrevOp() (abbrevOp, error) {
	lit, err := c.read(1)
	if err != nil {
		return abbrevOp{}, err
	}
	if lit == 1 {
		v, err := c.vbr64(8)
		return abbrevOp{opLiteral, v}, err
	}
	p := c.pos
	enc, err := c.read(3)
	if err != nil {
		return abbrevOp{}, err
	}
	switch enc {
	case opFixed, opVBR:
		w, err := c.vbr64(5)
		if err != nil {
			return abbrevOp{}, err
		}
		if w == 0 {
			return abbrevOp{opLiteral, 0}, nil // LLVM's reading of fixed(0) and vbr(0)
		}
		if w > maxChunk {
			return abbrevOp{}, c.errorf(p, w, "abbreviation operand width")
		}
		return abbrevOp{uint8(enc), w}, nil
	case opArray, opChar6, opBlob:
		return abbrevOp{enc: uint8(enc)}, nil
	}
	return abbrevOp{}, c.errorf(p, enc, "abbreviation operand encoding")
}

// blobRef locates a blob in the file without reading it.
type blobRef struct {
	off, size int64
}

// readRecord reads the record whose abbreviation ID advance just returned,
// keeping only its code and its last blob, as readRecord does.
func (c *cursor) readRecord(id uint64) (code uint32, blob blobRef, err error) {
	if id == abbrevUnabbrev {
		code, err := c.unabbrevRecord()
		return code, blob, err
	}
	p := c.pos
	if id-firstUserAbbrev >= uint64(len(c.abbrevs)) {
		return 0, blob, c.errorf(p, id, "undefined abbreviation ID")
	}
	a := &c.abbrevs[id-firstUserAbbrev]
	if a.bad != "" {
		return 0, blob, c.errorf(p, nil, "%s", a.bad)
	}
	v, err := c.field(a.code)
	if err != nil {
		return 0, blob, err
	}
	code = uint32(v)
	for i := 0; i < len(a.ops); i++ {
		switch a.ops[i].enc {
		case opArray:
			i++
			err = c.array(a.ops[i])
		case opBlob:
			blob, err = c.blob()
		default:
			var v uint64
			v, err = c.field(a.ops[i])
			c.keep(v)
		}
		if err != nil {
			return 0, blobRef{}, err
		}
	}
	return code, blob, nil
}

// unabbrevRecord reads an UNABBREV_RECORD, the only kind of record that
// fits the 2-bit abbreviation IDs of the top level.
func (c *cursor) unabbrevRecord() (uint32, error) {
	code, err := c.vbr32(6)
	if err != nil {
		return 0, err
	}
	p := c.pos
	n, err := c.vbr32(6)
	if err != nil {
		return 0, err
	}
	if uint64(n) > c.endBit() {
		return 0, c.errorf(p, n, "implausible operand count")
	}
	for range n {
		v, err := c.vbr64(6)
		if err != nil {
			return 0, err
		}
		c.keep(v)
	}
	return code, nil
}

// field reads one scalar operand.
func (c *cursor) field(op abbrevOp) (uint64, error) {
	switch op.enc {
	case opLiteral:
		return op.val, nil
	case opFixed:
		return c.read(uint(op.val))
	case opVBR:
		return c.vbr64(uint(op.val))
	default: // opChar6
		v, err := c.read(6)
		return uint64(char6[v]), err
	}
}

// char6 decodes the 6-bit character encoding ([a-zA-Z0-9._]).
const char6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"

func (c *cursor) array(elt abbrevOp) error {
	p := c.pos
	n, err := c.vbr32(6)
	if err != nil {
		return err
	}
	if uint64(n) > c.endBit() {
		return c.errorf(p, n, "implausible array length")
	}
	var width uint64
	switch elt.enc {
	case opFixed:
		width = elt.val
	case opChar6:
		width = 6
	case opVBR:
		for range n {
			v, err := c.vbr64(uint(elt.val))
			if err != nil {
				return err
			}
			c.keep(v)
		}
		return nil
	}
	end := c.pos + uint64(n)*width
	if end > c.endBit() {
		return c.errorf(p, n, "array runs past end of bitstream: length")
	}
	if c.text != nil {
		// Read the elements one by one (bounded by the check above).
		for c.pos < end && len(*c.text) < maxText {
			v, err := c.field(elt)
			if err != nil {
				return err
			}
			c.keep(v)
		}
	}
	c.pos = end
	return nil
}

func (c *cursor) blob() (blobRef, error) {
	p := c.pos
	n, err := c.vbr32(6)
	if err != nil {
		return blobRef{}, err
	}
	c.align32()
	start := c.pos
	end := start + (uint64(n)+3)&^3*8
	if end > c.endBit() {
		return blobRef{}, c.errorf(p, n, "blob runs past end of bitstream: length")
	}
	c.pos = end
	return blobRef{off: c.off(start), size: int64(n)}, nil
}
