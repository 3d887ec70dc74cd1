package ir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Fixed abbreviation IDs of the bitstream container and the blob encoding
// of DEFINE_ABBREV (llvm/docs/BitCodeFormat.rst).
const (
	abbrevEndBlock      = 0
	abbrevEnterSubblock = 1
	abbrevDefine        = 2
	abbrevUnabbrev      = 3
	abbrevFirst         = 4

	encodingBlob = 5
)

// bitstream builds a bitstream in memory but for blobs read from readers,
// which stay references until WriteTo copies them: the output is a list of
// segments, bytes and blobs alternating.
type bitstream struct {
	segs   []segment
	cur    []byte // the last, open byte segment
	nbits  uint64 // bits in cur
	width  uint   // abbreviation ID width of the current block
	blocks []openBlock
	done   int64 // bytes in closed segments
}

type segment struct {
	bytes []byte
	blob  io.ReaderAt
	size  int64
}

type openBlock struct {
	width  uint
	seg    int   // segment holding the length word, len(segs) for cur
	lenOff int   // its offset there
	start  int64 // stream byte offset after the length word
}

func newBitstream(magic []byte) *bitstream {
	s := &bitstream{width: 2}
	for _, c := range magic {
		s.fixed(uint64(c), 8)
	}
	return s
}

// fixed writes the low width bits of v, least significant first.
func (s *bitstream) fixed(v uint64, width uint) {
	for width > 0 {
		if s.nbits%8 == 0 {
			s.cur = append(s.cur, 0)
		}
		used := uint(s.nbits % 8)
		n := min(8-used, width)
		s.cur[len(s.cur)-1] |= byte(v&(1<<n-1)) << used
		v >>= n
		width -= n
		s.nbits += uint64(n)
	}
}

// vbr writes v in chunks of width-1 bits, each flagged by its top bit.
func (s *bitstream) vbr(v uint64, width uint) {
	hi := uint64(1) << (width - 1)
	for v >= hi {
		s.fixed(v&(hi-1)|hi, width)
		v >>= width - 1
	}
	s.fixed(v, width)
}

// pos is the number of bits written.
func (s *bitstream) pos() uint64 { return uint64(s.done)*8 + s.nbits }

func (s *bitstream) align32() {
	for s.pos()%32 != 0 {
		s.fixed(0, 8-uint(s.nbits%8))
	}
}

// offset is the stream's length in bytes (the stream is byte aligned).
func (s *bitstream) offset() int64 { return int64(s.pos() / 8) }

func (s *bitstream) enterBlock(id uint64, width uint) {
	s.fixed(abbrevEnterSubblock, s.width)
	s.vbr(id, 8)
	s.vbr(uint64(width), 4)
	s.align32()
	s.blocks = append(s.blocks, openBlock{width: s.width, seg: len(s.segs), lenOff: len(s.cur)})
	s.fixed(0, 32) // the length word, set by endBlock
	s.blocks[len(s.blocks)-1].start = s.offset()
	s.width = width
}

func (s *bitstream) endBlock() error {
	s.fixed(abbrevEndBlock, s.width)
	s.align32()
	b := s.blocks[len(s.blocks)-1]
	s.blocks = s.blocks[:len(s.blocks)-1]
	s.width = b.width
	words := (s.offset() - b.start) / 4
	if words > math.MaxUint32 {
		return errors.New("ir: a bitcode block is over 16 GiB")
	}
	buf := s.cur
	if b.seg < len(s.segs) {
		buf = s.segs[b.seg].bytes
	}
	binary.LittleEndian.PutUint32(buf[b.lenOff:], uint32(words))
	return nil
}

// record writes an unabbreviated record.
func (s *bitstream) record(code uint64, ops ...uint64) {
	s.fixed(abbrevUnabbrev, s.width)
	s.vbr(code, 6)
	s.vbr(uint64(len(ops)), 6)
	for _, v := range ops {
		s.vbr(v, 6)
	}
}

// stringRecord writes a record whose operands are the bytes of str.
func (s *bitstream) stringRecord(code uint64, lead []uint64, str string) {
	ops := append([]uint64(nil), lead...)
	for i := 0; i < len(str); i++ {
		ops = append(ops, uint64(str[i]))
	}
	s.record(code, ops...)
}

// defineBlobAbbrev defines, in the current block, the abbreviation
// [code, blob]: the next abbreviation ID, abbrevFirst in a fresh block.
func (s *bitstream) defineBlobAbbrev(code uint64) {
	s.fixed(abbrevDefine, s.width)
	s.vbr(2, 5)    // two operands
	s.fixed(1, 1)  // a literal,
	s.vbr(code, 8) // the record code
	s.fixed(0, 1)  // an encoding,
	s.fixed(encodingBlob, 3)
}

// blob writes a record of the abbreviation defineBlobAbbrev defined, its
// size bytes to be read from r by WriteTo.
func (s *bitstream) blob(r io.ReaderAt, size int64) error {
	if size < 0 || size > math.MaxUint32 {
		return fmt.Errorf("ir: a blob of %d bytes does not fit bitcode's 32-bit length", size)
	}
	s.fixed(abbrevFirst, s.width)
	s.vbr(uint64(size), 6)
	s.align32()
	s.segs = append(s.segs, segment{bytes: s.cur})
	s.done += int64(len(s.cur))
	s.segs = append(s.segs, segment{blob: r, size: size})
	s.done += size
	s.cur, s.nbits = nil, 0
	s.align32()
	return nil
}

// WriteTo writes the stream, copying blobs from their readers.
func (s *bitstream) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, seg := range append(s.segs, segment{bytes: s.cur}) {
		var k int64
		var err error
		if seg.blob == nil {
			var m int
			m, err = w.Write(seg.bytes)
			k = int64(m)
		} else {
			k, err = io.Copy(w, io.NewSectionReader(seg.blob, 0, seg.size))
			if err == nil && k != seg.size {
				err = fmt.Errorf("ir: an image of %d bytes ended after %d", seg.size, k)
			}
		}
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
