package zstdexact

// libzstd's block splitter (ZSTD_compressBlock_splitBlock), on for the
// optimal strategies from a 128 KiB window on: a block's sequences are
// cut in halves, recursively, where the estimated sizes of the halves
// (each with its own entropy tables) add up to less than the whole's;
// each part is then a block of its own. The estimates follow libzstd's
// to the byte, since they decide the cuts.

const (
	minSeqsBlockSplitting   = 300 // fewer sequences are not cut
	maxNbBlockSplits        = 196
	compressLiteralsSizeMin = 63 // the estimate takes fewer literals as raw
	rleMaxLength            = 25
)

// useBlockSplitter says whether libzstd splits blocks at these
// parameters (ZSTD_resolveBlockSplitterMode).
func (p params) useBlockSplitter() bool {
	return p.strat >= stratBtopt && p.windowLog >= 17
}

// chunk is the sequences [start, end) of the block's seqStore and their
// literals; the last chunk also has the literals after the last match.
type chunk struct {
	seqs    []sequence
	lits    []byte
	srcSize int // literals and matches of seqs, the trailing literals not counted
}

func (c *compressor) chunk(start, end int) chunk {
	ss := &c.ss
	litStart := 0
	for _, q := range ss.seqs[:start] {
		litStart += int(q.litLen)
	}
	lits, matches := 0, 0
	for _, q := range ss.seqs[start:end] {
		lits += int(q.litLen)
		matches += int(q.mlBase) + 3
	}
	litEnd := litStart + lits
	if end == len(ss.seqs) {
		litEnd = len(ss.lits)
	}
	return chunk{ss.seqs[start:end], ss.lits[litStart:litEnd], lits + matches}
}

// splitBlock writes src[pos:pos+n] as one block or as several, cut where
// the splitter finds it pays.
func (c *compressor) splitBlock(dst []byte, pos, n int, last bool) []byte {
	if n < 7 {
		if c.fse.ofRep == fseRepeatValid {
			c.fse.ofRep = fseRepeatCheck
		}
		head := len(dst)
		return c.blockHeader(append(dst, 0, 0, 0), head, nil, 0, pos, n, last)
	}
	parserRep := c.parse(pos, n)
	nbSeq := len(c.ss.seqs)
	var splits []int
	if nbSeq > 4 {
		c.deriveSplits(&splits, 0, nbSeq)
	}
	// dRep follows the repeated offsets as a decoder sees them, cRep as
	// the parser chose them: they part where a part is stored raw or as
	// RLE, and a repeated offset then becomes the offset it meant.
	dRep, cRep := c.rep, c.rep
	if len(splits) == 0 {
		whole := chunk{c.ss.seqs, c.ss.lits, n}
		return c.partBlock(dst, whole, &dRep, &cRep, parserRep, pos, n, last, false)
	}
	start, done := 0, 0
	for i, end := range append(splits, nbSeq) {
		ch := c.chunk(start, end)
		size := ch.srcSize
		done += size
		lastPart := i == len(splits)
		if lastPart {
			size += n - done
		}
		dst = c.partBlock(dst, ch, &dRep, &cRep, parserRep, pos, size, last && lastPart, true)
		pos += size
		start = end
	}
	c.rep = dRep
	return dst
}

// partBlock writes one block of the chunk, for src[pos:pos+n]
// (ZSTD_compressSeqStore_singleBlock).
func (c *compressor) partBlock(dst []byte, ch chunk, dRep, cRep *[3]uint32, parserRep [3]uint32, pos, n int, last, isPartition bool) []byte {
	dRepOrig := *dRep
	if isPartition {
		resolveOffCodes(dRep, cRep, ch.seqs)
	}
	head := len(dst)
	dst = append(dst, 0, 0, 0)
	cSize, out, huf, fse := c.entropyCompress(dst, ch.seqs, ch.lits, n)
	if !c.first && cSize < rleMaxLength && allSame(c.ms.src[pos:pos+n]) {
		cSize = 1
	}
	if cSize <= 1 {
		*dRep = dRepOrig
	} else {
		c.rep, c.huf, c.fse = parserRep, huf, fse
	}
	if c.fse.ofRep == fseRepeatValid {
		c.fse.ofRep = fseRepeatCheck
	}
	return c.blockHeader(dst, head, out, cSize, pos, n, last)
}

// resolveOffCodes replaces each repeated offset of seqs whose meaning
// differs between the decoder's history (dRep) and the parser's (cRep)
// by the offset the parser meant, and moves both histories on.
func resolveOffCodes(dRep, cRep *[3]uint32, seqs []sequence) {
	for i := range seqs {
		q := &seqs[i]
		ll0 := q.litLen == 0
		offBase := q.offBase
		if offBase <= 3 {
			d, cr := repToOffset(*dRep, offBase, ll0), repToOffset(*cRep, offBase, ll0)
			if d != cr {
				q.offBase = cr + 3
			}
		}
		*dRep = newRep(*dRep, q.offBase, ll0)
		*cRep = newRep(*cRep, offBase, ll0)
	}
}

// repToOffset is the offset the repeated offset offBase names.
func repToOffset(rep [3]uint32, offBase uint32, ll0 bool) uint32 {
	r := offBase - 1
	if ll0 {
		r++
	}
	if r == 3 {
		return rep[0] - 1
	}
	return rep[r]
}

// deriveSplits appends to splits the sequence indices where
// [start, end) is cut (ZSTD_deriveBlockSplitsHelper).
func (c *compressor) deriveSplits(splits *[]int, start, end int) {
	if end-start < minSeqsBlockSplitting || len(*splits) >= maxNbBlockSplits {
		return
	}
	mid := (start + end) / 2
	whole, ok1 := c.estimate(c.chunk(start, end))
	first, ok2 := c.estimate(c.chunk(start, mid))
	second, ok3 := c.estimate(c.chunk(mid, end))
	if !ok1 || !ok2 || !ok3 {
		return
	}
	if first+second < whole {
		c.deriveSplits(splits, start, mid)
		*splits = append(*splits, mid)
		c.deriveSplits(splits, mid, end)
	}
}

// estimate is libzstd's estimate of the compressed size of a chunk as a
// block of its own after the previous block's tables
// (ZSTD_buildEntropyStatisticsAndEstimateSubBlockSize); ok is false
// where libzstd's estimate is an error.
func (c *compressor) estimate(ch chunk) (uint64, bool) {
	s := c.p.strat
	hType, desSize, table, ok := litStats(ch.lits, c.huf, s)
	if !ok {
		return 0, false
	}
	types := [3]int{setBasic, setBasic, setBasic}
	fseSize := 0
	next := c.fse
	if len(ch.seqs) > 0 {
		desc, nx, ty, _, err := seqTables(nil, ch.seqs, c.fse, s, &c.estCodes)
		if err != nil {
			return 0, false
		}
		next, types, fseSize = nx, ty, len(desc)
	} else {
		seqCodes(nil, &c.estCodes)
	}
	lits := estimateLiterals(ch.lits, hType, table, desSize)
	nbSeq := len(ch.seqs)
	seqSize := uint64(2)
	if nbSeq >= 128 {
		seqSize++
	}
	if nbSeq >= longNbSeq {
		seqSize++
	}
	seqSize += estimateSymbols(types[1], c.estCodes[1], maxOff, next.of, nil, ofDefaultNorm, ofDefaultNormLog)
	seqSize += estimateSymbols(types[0], c.estCodes[0], maxLL, next.ll, llBits[:], llDefaultNorm, llDefaultNormLog)
	seqSize += estimateSymbols(types[2], c.estCodes[2], maxML, next.ml, mlBits[:], mlDefaultNorm, mlDefaultNormLog)
	seqSize += uint64(fseSize)
	return seqSize + lits + 3, true
}

// litStats chooses the literals' encoding for the estimate
// (ZSTD_buildBlockEntropyStats_literals), with rules of its own: raw up
// to 63 literals, and the table description counted against the coded
// size. desSize is the description's size where a new table is chosen;
// ok is false where that description cannot be written (libzstd's error).
func litStats(lits []byte, prev hufState, s strategy) (hType int, desSize uint64, table *hufCTable, ok bool) {
	n := len(lits)
	minLit := compressLiteralsSizeMin
	if prev.repeat == hufRepeatValid {
		minLit = 6
	}
	if n <= minLit {
		return setBasic, 0, prev.table, true
	}
	var cnt [256]uint32
	maxSym, largest := histogram(cnt[:], lits)
	if largest == n {
		return setRLE, 0, prev.table, true
	}
	if largest <= n>>7+4 {
		return setBasic, 0, prev.table, true
	}
	repeat := prev.repeat
	if repeat == hufRepeatCheck && !prev.table.validFor(cnt[:], maxSym) {
		repeat = hufRepeatNone
	}
	huffLog := fseOptimalTableLog(litHufLog, n, maxSym, 1)
	if s >= stratBtultra {
		huffLog = hufOptimalDepth(cnt[:], maxSym, litHufLog)
	}
	ct := buildHufCTable(cnt[:], maxSym, huffLog)
	newSize := uint64(ct.estimateSize(cnt[:], maxSym))
	// libzstd's error code stands in the sums as the size it is (all
	// ones), wrapping around as its size_t does.
	hSize := ^uint64(0)
	desc, err := writeHufCTable(nil, ct)
	if err == nil {
		hSize = uint64(len(desc))
	}
	if repeat != hufRepeatNone {
		oldSize := uint64(prev.table.estimateSize(cnt[:], maxSym))
		if oldSize < uint64(n) && (oldSize <= hSize+newSize || hSize+12 >= uint64(n)) {
			return setRepeat, 0, prev.table, true
		}
	}
	if newSize+hSize >= uint64(n) {
		return setBasic, 0, prev.table, true
	}
	return setCompressed, hSize, ct, err == nil
}

// estimateLiterals is the estimated size of the literals section
// (ZSTD_estimateBlockSize_literal).
func estimateLiterals(lits []byte, hType int, table *hufCTable, desSize uint64) uint64 {
	n := len(lits)
	switch hType {
	case setBasic:
		return uint64(n)
	case setRLE:
		return 1
	}
	var cnt [256]uint32
	maxSym, _ := histogram(cnt[:], lits)
	size := uint64(table.estimateSize(cnt[:], maxSym))
	if hType == setCompressed {
		size += desSize
	}
	if n >= 256 {
		size += 6 // the jump table of four streams
	}
	header := uint64(3)
	if n >= 1<<10 {
		header++
	}
	if n >= 16<<10 {
		header++
	}
	return size + header
}

// estimateSymbols is the estimated size in bytes of one kind of code and
// its extra bits (ZSTD_estimateBlockSize_symbolType); extra nil means
// the code is its own number of extra bits (offsets).
func estimateSymbols(typ int, codes []uint8, maxCode int, table *fseCTable, extra []uint8, defNorm []int16, defLog uint) uint64 {
	var cnt [maxML + 1]uint32
	maxSym, _ := countCodes(cnt[:maxCode+1], codes)
	bits := 0
	switch typ {
	case setBasic:
		bits = crossEntropyCost(defNorm, defLog, cnt[:], maxSym)
	case setCompressed, setRepeat:
		if bits = fseBitCostOf(table, cnt[:], maxSym); bits == costError {
			return uint64(len(codes)) * 10
		}
	}
	for _, code := range codes {
		if extra != nil {
			bits += int(extra[code])
		} else {
			bits += int(code)
		}
	}
	return uint64(bits) >> 3
}
