// Package zstdexact writes ZSTD frames (RFC 8878) byte for byte as
// libzstd 1.5.6's one-shot ZSTD_compress does at the levels whose match
// finders it implements: the greedy, lazy and lazy2 strategies (levels 4
// to 12 or so, by source size), with both of libzstd's match finders for
// them (hash chains for windows up to 16 KiB, rows above), and the
// optimal parser of btopt, btultra and btultra2 (levels 13 to 22 or so)
// with the block splitter libzstd runs with it from a 128 KiB window on.
// It is how lib/nvfatbin writes the ZSTD entries of CUDA 13's fatbinary,
// which calls libzstd at level 5, and at one of 18 to 22 for its size
// mode.
//
// Everything that decides the bytes follows libzstd: the parameters it
// derives from the level and source size, the parse (repeat offsets,
// lazy evaluation gains, skipping over incompressible runs; the optimal
// parser's prices and statistics; where blocks are cut), and the
// entropy stage (literals: raw, RLE or Huffman with one or four streams
// and libzstd's tree construction and table log; sequences: the choice
// among predefined, RLE, new and repeated FSE tables and its
// normalisation).
package zstdexact

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrStrategy is returned for levels whose libzstd strategy (for the
// source's size) this package does not implement.
var ErrStrategy = errors.New("zstdexact: the level's strategy is not implemented")

const blockSizeMax = 128 << 10

// MaxSource is the largest source Compress takes: libzstd renumbers its
// table indices ("overflow correction") past 3.5 GiB, which this package
// does not do.
const MaxSource = 1 << 31

// Supported says whether Compress can write level's frame for a source
// of n bytes.
func Supported(level int, n int) bool {
	if level < 1 || level > 22 || n > MaxSource {
		return false
	}
	// all but fast, dfast and btlazy2
	p := paramsFor(level, int64(n))
	return p.strat >= stratGreedy && p.strat != stratBtlazy2
}

// Compress appends to dst the ZSTD frame libzstd's ZSTD_compress writes
// for src at level: single segment where the window covers src, the
// content size declared, no checksum, no dictionary.
func Compress(dst, src []byte, level int) ([]byte, error) {
	if level < 1 || level > 22 {
		return nil, fmt.Errorf("zstdexact: level %d out of 1..22", level)
	}
	if len(src) > MaxSource {
		return nil, fmt.Errorf("zstdexact: a source of %d bytes, over the %d supported", len(src), MaxSource)
	}
	if !Supported(level, len(src)) {
		return nil, ErrStrategy
	}
	p := paramsFor(level, int64(len(src)))
	dst = frameHeader(dst, p, uint64(len(src)))
	if len(src) == 0 {
		return append(dst, 1, 0, 0), nil // the last block, raw and empty
	}
	c := compressor{p: p, ms: newMatchState(p, src), rep: [3]uint32{1, 4, 8}, first: true}
	blockSize := min(blockSizeMax, 1<<p.windowLog)
	for pos := 0; pos < len(src); {
		n := min(blockSize, len(src)-pos)
		dst = c.block(dst, pos, n, pos+n == len(src))
		c.first = false
		pos += n
	}
	return dst, nil
}

func frameHeader(dst []byte, p params, n uint64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	windowSize := uint64(1) << p.windowLog
	single := windowSize >= n
	fcsCode := 0
	if n >= 256 {
		fcsCode++
	}
	if n >= 65536+256 {
		fcsCode++
	}
	if n >= 0xFFFFFFFF {
		fcsCode++
	}
	desc := byte(fcsCode << 6)
	if single {
		desc |= 1 << 5
	}
	dst = append(dst, desc)
	if !single {
		dst = append(dst, byte((p.windowLog-10)<<3))
	}
	switch fcsCode {
	case 0:
		if single {
			dst = append(dst, byte(n))
		}
	case 1:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n-256))
	case 2:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	case 3:
		dst = binary.LittleEndian.AppendUint64(dst, n)
	}
	return dst
}

// compressor carries what passes from block to block: the match
// finder's tables, the repeated offsets and the entropy tables, the last
// two only as of the last block stored compressed.
type compressor struct {
	p        params
	ms       *matchState
	rep      [3]uint32
	huf      hufState
	fse      fseTables
	ss       seqStore
	codes    [3][]uint8 // of lengths and offsets, per block
	estCodes [3][]uint8 // the same, for the block splitter's estimates
	first    bool
}

func (c *compressor) block(dst []byte, pos, n int, last bool) []byte {
	ms := c.ms
	maxDist := uint32(1) << c.p.windowLog
	// The window's lower end follows the block start.
	if blockIdx := uint32(pos) + ms.base; blockIdx > maxDist {
		if low := blockIdx - maxDist; ms.lowLimit < low {
			ms.lowLimit = low
		}
		if ms.dictLimit < ms.lowLimit {
			ms.dictLimit = ms.lowLimit
		}
	}
	if ms.nextToUpdate < ms.lowLimit {
		ms.nextToUpdate = ms.lowLimit
	}
	if c.p.useBlockSplitter() {
		return c.splitBlock(dst, pos, n, last)
	}
	head := len(dst)
	dst = append(dst, 0, 0, 0)
	cSize, out := c.compressBlock(dst, pos, n)
	return c.blockHeader(dst, head, out, cSize, pos, n, last)
}

// blockHeader finishes the block whose body compressBlock (or its like)
// left at dst[head+3:]: stored raw (cSize 0), as RLE (1), or compressed.
func (c *compressor) blockHeader(dst []byte, head int, out []byte, cSize, pos, n int, last bool) []byte {
	src := c.ms.src
	lastBit := 0
	if last {
		lastBit = 1
	}
	switch cSize {
	case 0: // raw
		dst = append(dst[:head], 0, 0, 0)
		dst = append(dst, src[pos:pos+n]...)
		putHeader(dst[head:], uint32(lastBit+n<<3))
	case 1: // RLE
		dst = append(dst[:head+3], src[pos])
		putHeader(dst[head:], uint32(lastBit+1<<1+n<<3))
	default:
		dst = out
		putHeader(dst[head:], uint32(lastBit+2<<1+cSize<<3))
	}
	return dst
}

func putHeader(b []byte, v uint32) {
	b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16)
}

// parse fills c.ss with the sequences and literals of src[pos:pos+n]
// (ZSTD_buildSeqStore) and returns the repeated offsets after them.
func (c *compressor) parse(pos, n int) [3]uint32 {
	ms := c.ms
	src := ms.src
	c.ss.reset()
	if curr := uint32(pos) + ms.base; curr > ms.nextToUpdate+384 {
		// after a very long match, insert only the last positions of it
		ms.nextToUpdate = curr - min(192, curr-ms.nextToUpdate-384)
	}
	rep := c.rep
	var lastLits int
	if c.p.strat >= stratBtopt {
		lastLits = ms.compressBt(&c.ss, &rep, pos, pos+n)
	} else {
		lastLits = ms.compressLazy(&c.ss, &rep, pos, pos+n, int(c.p.strat-stratGreedy))
	}
	c.ss.lits = append(c.ss.lits, src[pos+n-lastLits:pos+n]...)
	return rep
}

// entropyCompress appends the literals and sequences sections of seqs
// and lits, which stand for n source bytes (ZSTD_entropyCompressSeqStore),
// and returns their size, 0 where the block is better stored raw, and
// the entropy tables for the next block should it be kept.
func (c *compressor) entropyCompress(dst []byte, seqs []sequence, lits []byte, n int) (int, []byte, hufState, fseTables) {
	start := len(dst)
	nSeq := len(seqs)
	suspect := nSeq == 0 || len(lits)/nSeq >= 20
	out, huf := compressLiterals(dst, lits, c.huf, c.p.strat, suspect)
	out, fse, ok, err := compressSequences(out, seqs, c.fse, c.p.strat, &c.codes)
	cSize := len(out) - start
	if err != nil || !ok || cSize >= n-minGain(n, c.p.strat) {
		cSize = 0
	}
	return cSize, out, huf, fse
}

// compressBlock appends the compressed block body for src[pos:pos+n] to
// dst and returns its size: 0 to store the block raw, 1 for RLE.
func (c *compressor) compressBlock(dst []byte, pos, n int) (int, []byte) {
	src := c.ms.src
	if n < 7 {
		return 0, nil // too small to try
	}
	rep := c.parse(pos, n)
	cSize, out, huf, fse := c.entropyCompress(dst, c.ss.seqs, c.ss.lits, n)
	if !c.first && cSize < 25 && allSame(src[pos:pos+n]) {
		return 1, nil
	}
	if cSize <= 1 {
		return cSize, nil
	}
	c.rep, c.huf, c.fse = rep, huf, fse
	if c.fse.ofRep == fseRepeatValid {
		c.fse.ofRep = fseRepeatCheck
	}
	return cSize, out
}
