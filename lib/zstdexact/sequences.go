package zstdexact

import (
	"math/big"
	"slices"
)

// The sequences section: codes of the lengths and offsets, the choice
// of each code table (predefined, RLE, new or the previous block's) and
// the interleaved FSE bit stream, as libzstd writes them.

const (
	maxLL, maxML, maxOff = 35, 52, 31
	llFSELog, mlFSELog   = 9, 9
	offFSELog            = 8
	defaultMaxOff        = 28
	longNbSeq            = 0x7F00
)

var llBits = [maxLL + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

var mlBits = [maxML + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

// The predefined distributions of the format (RFC 8878, 3.1.1.3.2.2).
var llDefaultNorm = []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
var mlDefaultNorm = []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}
var ofDefaultNorm = []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}

const llDefaultNormLog, mlDefaultNormLog, ofDefaultNormLog = 6, 6, 5

func llCode(ll uint32) uint8 {
	if ll >= 64 {
		return uint8(highbit(ll) + 19)
	}
	switch {
	case ll < 16:
		return uint8(ll)
	case ll < 24:
		return uint8(16 + (ll-16)/2)
	case ll < 32:
		return uint8(20 + (ll-24)/4)
	case ll < 48:
		return 22 + uint8((ll-32)/8)
	}
	return 24
}

func mlCode(mlBase uint32) uint8 {
	if mlBase >= 128 {
		return uint8(highbit(mlBase) + 36)
	}
	switch {
	case mlBase < 32:
		return uint8(mlBase)
	case mlBase < 40:
		return uint8(32 + (mlBase-32)/2)
	case mlBase < 48:
		return uint8(36 + (mlBase-40)/4)
	case mlBase < 64:
		return uint8(38 + (mlBase-48)/8)
	}
	if mlBase < 96 {
		return uint8(40 + (mlBase-64)/16)
	}
	return 42
}

// fseRepeat says whether a code table may be reused by the next block.
type fseRepeat int

const (
	fseRepeatNone fseRepeat = iota
	fseRepeatCheck
	fseRepeatValid
)

type fseTables struct {
	ll, of, ml          *fseCTable
	llRep, ofRep, mlRep fseRepeat
}

// encoding types of the sequences section header
const (
	setBasic = iota
	setRLE
	setCompressed
	setRepeat
)

// kInverseProbabilityLog256[i] is floor(256 * log2(256/i)), the cost in
// 1/256 bits of a symbol of probability i/256: 2048 less the ceiling of
// 256*log2(i), which is the bit length of i^256 - 1 (exact, in integers).
var kInverseProbabilityLog256 = func() [256]uint32 {
	var t [256]uint32
	for i := int64(1); i < 256; i++ {
		x := new(big.Int).Exp(big.NewInt(i), big.NewInt(256), nil)
		t[i] = uint32(2048 - x.Sub(x, big.NewInt(1)).BitLen())
	}
	return t
}()

func entropyCost(cnt []uint32, maxSym int, total int) int {
	cost := 0
	for s := 0; s <= maxSym; s++ {
		norm := (256 * cnt[s]) / uint32(total)
		if cnt[s] != 0 && norm == 0 {
			norm = 1
		}
		cost += int(cnt[s] * kInverseProbabilityLog256[norm])
	}
	return cost >> 8
}

func crossEntropyCost(norm []int16, accuracyLog uint, cnt []uint32, maxSym int) int {
	shift := 8 - accuracyLog
	cost := 0
	for s := 0; s <= maxSym; s++ {
		n := uint32(1)
		if norm[s] != -1 {
			n = uint32(norm[s])
		}
		cost += int(cnt[s] * kInverseProbabilityLog256[n<<shift])
	}
	return cost >> 8
}

const costError = int(^uint(0) >> 1)

func fseBitCostOf(ct *fseCTable, cnt []uint32, maxSym int) int {
	const accuracyLog = 8
	if ct.maxSym < maxSym {
		return costError
	}
	cost := 0
	badCost := uint32(ct.tableLog+1) << accuracyLog
	for s := 0; s <= maxSym; s++ {
		if cnt[s] == 0 {
			continue
		}
		bc := ct.bitCost(s, accuracyLog)
		if bc >= badCost {
			return costError
		}
		cost += int(cnt[s]) * int(bc)
	}
	return cost >> accuracyLog
}

func nCountCost(cnt []uint32, maxSym int, nbSeq int, fseLog uint) int {
	var norm [maxML + 1]int16
	tableLog := fseOptimalTableLog(fseLog, nbSeq, maxSym, 2)
	if err := fseNormalize(norm[:], tableLog, cnt, nbSeq, maxSym, nbSeq >= 2048); err != nil {
		return costError
	}
	return len(fseWriteNCount(nil, norm[:], maxSym, tableLog))
}

// selectEncoding chooses a code table's type as ZSTD_selectEncodingType.
func selectEncoding(repeat *fseRepeat, cnt []uint32, maxSym, mostFrequent, nbSeq int, fseLog uint,
	prev *fseCTable, defNorm []int16, defLog uint, defaultAllowed bool, s strategy) int {
	if mostFrequent == nbSeq {
		*repeat = fseRepeatNone
		if defaultAllowed && nbSeq <= 2 {
			return setBasic
		}
		return setRLE
	}
	if s < stratLazy {
		if defaultAllowed {
			const staticFseNbSeqMax = 1000
			mult := 10 - int(s)
			dynamicFseNbSeqMin := ((1 << defLog) * mult) >> 3
			if *repeat == fseRepeatValid && nbSeq < staticFseNbSeqMax {
				return setRepeat
			}
			if nbSeq < dynamicFseNbSeqMin || mostFrequent < nbSeq>>(defLog-1) {
				*repeat = fseRepeatNone
				return setBasic
			}
		}
	} else {
		basicCost, repeatCost := costError, costError
		if defaultAllowed {
			basicCost = crossEntropyCost(defNorm, defLog, cnt, maxSym)
		}
		if *repeat != fseRepeatNone {
			repeatCost = fseBitCostOf(prev, cnt, maxSym)
		}
		compressedCost := nCountCost(cnt, maxSym, nbSeq, fseLog)<<3 + entropyCost(cnt, maxSym, nbSeq)
		if basicCost <= repeatCost && basicCost <= compressedCost {
			*repeat = fseRepeatNone
			return setBasic
		}
		if repeatCost <= compressedCost {
			return setRepeat
		}
	}
	*repeat = fseRepeatCheck
	return setCompressed
}

// buildTable makes the code table of the chosen type and appends its
// description (RLE byte or NCount) to out.
func buildTable(out []byte, typ int, cnt []uint32, maxSym int, codes []uint8, fseLog uint,
	defNorm []int16, defLog uint, defMax int, prev *fseCTable) ([]byte, *fseCTable, error) {
	switch typ {
	case setRLE:
		return append(out, codes[0]), rleFSECTable(maxSym), nil
	case setRepeat:
		return out, prev, nil
	case setBasic:
		return out, buildFSECTable(defNorm, defMax, defLog), nil
	}
	nbSeq := len(codes)
	tableLog := fseOptimalTableLog(fseLog, nbSeq, maxSym, 2)
	// The last code is the first state, sent whole: it is left out of
	// the counts.
	if last := codes[nbSeq-1]; cnt[last] > 1 {
		cnt[last]--
		nbSeq--
	}
	var norm [maxML + 1]int16
	if err := fseNormalize(norm[:], tableLog, cnt, nbSeq, maxSym, nbSeq >= 2048); err != nil {
		return nil, nil, err
	}
	return fseWriteNCount(out, norm[:], maxSym, tableLog), buildFSECTable(norm[:maxSym+1], maxSym, tableLog), nil
}

func countCodes(cnt []uint32, codes []uint8) (maxSym, mostFrequent int) {
	clear(cnt)
	for _, c := range codes {
		cnt[c]++
	}
	maxSym = len(cnt) - 1
	for maxSym > 0 && cnt[maxSym] == 0 {
		maxSym--
	}
	for _, c := range cnt[:maxSym+1] {
		mostFrequent = max(mostFrequent, int(c))
	}
	return maxSym, mostFrequent
}

// compressSequences appends the sequences section of seqs and returns
// the tables for the next block; codes is room for the codes, kept from
// block to block. ok is false where libzstd gives up and
// stores the block raw.
func compressSequences(out []byte, seqs []sequence, prev fseTables, s strategy, codes *[3][]uint8) ([]byte, fseTables, bool, error) {
	nbSeq := len(seqs)
	switch {
	case nbSeq < 128:
		out = append(out, byte(nbSeq))
	case nbSeq < longNbSeq:
		out = append(out, byte(nbSeq>>8+0x80), byte(nbSeq))
	default:
		out = append(out, 0xFF, byte(nbSeq-longNbSeq), byte((nbSeq-longNbSeq)>>8))
	}
	if nbSeq == 0 {
		return out, prev, true, nil
	}
	head := len(out)
	out = append(out, 0)
	out, next, types, lastCountSize, err := seqTables(out, seqs, prev, s, codes)
	if err != nil {
		return nil, prev, false, err
	}
	llType, ofType, mlType := types[0], types[1], types[2]
	llCodes, ofCodes, mlCodes := codes[0], codes[1], codes[2]
	out[head] = byte(llType<<6 + ofType<<4 + mlType<<2)

	w := bitWriter{out: out}
	var sML, sOF, sLL fseState
	last := nbSeq - 1
	sML.start(next.ml, int(mlCodes[last]))
	sOF.start(next.of, int(ofCodes[last]))
	sLL.start(next.ll, int(llCodes[last]))
	w.add(uint64(seqs[last].litLen), uint(llBits[llCodes[last]]))
	w.add(uint64(seqs[last].mlBase), uint(mlBits[mlCodes[last]]))
	w.addWide(uint64(seqs[last].offBase), uint(ofCodes[last]))
	for n := nbSeq - 2; n >= 0; n-- {
		sOF.encode(&w, int(ofCodes[n]))
		sML.encode(&w, int(mlCodes[n]))
		sLL.encode(&w, int(llCodes[n]))
		w.add(uint64(seqs[n].litLen), uint(llBits[llCodes[n]]))
		w.add(uint64(seqs[n].mlBase), uint(mlBits[mlCodes[n]]))
		w.addWide(uint64(seqs[n].offBase), uint(ofCodes[n]))
	}
	sML.flush(&w)
	sOF.flush(&w)
	sLL.flush(&w)
	streamStart := len(out)
	out = w.close()
	// Decoders up to 1.3.4 misread an NCount followed by fewer than 4
	// bytes in all; libzstd stores such a block raw.
	if lastCountSize > 0 && lastCountSize+len(out)-streamStart < 4 {
		return out, next, false, nil
	}
	return out, next, true, nil
}

// seqCodes fills codes with the length and offset codes of seqs.
func seqCodes(seqs []sequence, codes *[3][]uint8) {
	nbSeq := len(seqs)
	for i := range codes {
		codes[i] = slices.Grow(codes[i][:0], nbSeq)[:nbSeq]
	}
	for i, q := range seqs {
		codes[0][i] = llCode(q.litLen)
		codes[1][i] = uint8(highbit(q.offBase))
		codes[2][i] = mlCode(q.mlBase)
	}
}

// seqTables chooses and builds the three code tables of seqs (at least
// one) as ZSTD_buildSequencesStatistics does, appending their
// descriptions to out; types are those of literal lengths, offsets and
// match lengths, lastCountSize the size of the last NCount written.
func seqTables(out []byte, seqs []sequence, prev fseTables, s strategy, codes *[3][]uint8) ([]byte, fseTables, [3]int, int, error) {
	nbSeq := len(seqs)
	seqCodes(seqs, codes)
	llCodes, ofCodes, mlCodes := codes[0], codes[1], codes[2]
	next := prev
	lastCountSize := 0
	var cnt [maxML + 1]uint32
	var err error
	var types [3]int

	maxSym, most := countCodes(cnt[:maxLL+1], llCodes)
	types[0] = selectEncoding(&next.llRep, cnt[:], maxSym, most, nbSeq, llFSELog, prev.ll, llDefaultNorm, llDefaultNormLog, true, s)
	before := len(out)
	if out, next.ll, err = buildTable(out, types[0], cnt[:], maxSym, llCodes, llFSELog, llDefaultNorm, llDefaultNormLog, maxLL, prev.ll); err != nil {
		return nil, prev, types, 0, err
	}
	if types[0] == setCompressed {
		lastCountSize = len(out) - before
	}

	maxSym, most = countCodes(cnt[:maxOff+1], ofCodes)
	types[1] = selectEncoding(&next.ofRep, cnt[:], maxSym, most, nbSeq, offFSELog, prev.of, ofDefaultNorm, ofDefaultNormLog, maxSym <= defaultMaxOff, s)
	before = len(out)
	if out, next.of, err = buildTable(out, types[1], cnt[:], maxSym, ofCodes, offFSELog, ofDefaultNorm, ofDefaultNormLog, defaultMaxOff, prev.of); err != nil {
		return nil, prev, types, 0, err
	}
	if types[1] == setCompressed {
		lastCountSize = len(out) - before
	}

	maxSym, most = countCodes(cnt[:maxML+1], mlCodes)
	types[2] = selectEncoding(&next.mlRep, cnt[:], maxSym, most, nbSeq, mlFSELog, prev.ml, mlDefaultNorm, mlDefaultNormLog, true, s)
	before = len(out)
	if out, next.ml, err = buildTable(out, types[2], cnt[:], maxSym, mlCodes, mlFSELog, mlDefaultNorm, mlDefaultNormLog, maxML, prev.ml); err != nil {
		return nil, prev, types, 0, err
	}
	if types[2] == setCompressed {
		lastCountSize = len(out) - before
	}
	return out, next, types, lastCountSize, nil
}
