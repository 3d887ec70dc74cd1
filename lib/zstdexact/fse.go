package zstdexact

import (
	"errors"
	"math/bits"
)

// The FSE (tANS) encoder of libzstd, for the sequence codes and for the
// Huffman weights: table log choice, count normalisation, the table
// description (NCount) and the encoding tables.

const (
	fseMinTableLog     = 5
	fseMaxTableLog     = 12
	fseDefaultTableLog = 11
)

var errNormalize = errors.New("zstdexact: cannot normalize counts")

func fseMinTableLogFor(total int, maxSym int) uint {
	minBitsSrc := highbit(uint32(total)) + 1
	minBitsSymbols := highbit(uint32(maxSym)) + 2
	if maxSym == 0 {
		minBitsSymbols = 1 // highbit(0) is taken as 0 by the C helper's use
	}
	return min(minBitsSrc, minBitsSymbols)
}

// fseOptimalTableLog is FSE_optimalTableLog_internal: the largest log
// the source size supports (less minus), within the limits.
func fseOptimalTableLog(maxTableLog uint, total int, maxSym int, minus uint) uint {
	maxBitsSrc := highbit(uint32(total-1)) - minus
	tableLog := maxTableLog
	if tableLog == 0 {
		tableLog = fseDefaultTableLog
	}
	minBits := fseMinTableLogFor(total, maxSym)
	if maxBitsSrc < tableLog {
		tableLog = maxBitsSrc
	}
	if minBits > tableLog {
		tableLog = minBits
	}
	return min(max(tableLog, fseMinTableLog), fseMaxTableLog)
}

// fseNormalize scales counts (summing to total) to 1<<tableLog as
// FSE_normalizeCount does; with lowProb, symbols too rare for one slot
// get -1 (a "less than one" probability).
func fseNormalize(norm []int16, tableLog uint, cnt []uint32, total int, maxSym int, lowProb bool) error {
	if tableLog < fseMinTableLogFor(total, maxSym) {
		return errNormalize
	}
	rtb := [8]uint64{0, 473195, 504333, 520860, 550000, 700000, 750000, 830000}
	lowProbCount := int16(1)
	if lowProb {
		lowProbCount = -1
	}
	scale := 62 - tableLog
	step := (uint64(1) << 62) / uint64(total)
	vStep := uint64(1) << (scale - 20)
	still := 1 << tableLog
	largest := 0
	largestP := int16(0)
	lowThreshold := uint32(total >> tableLog)
	for s := 0; s <= maxSym; s++ {
		if int(cnt[s]) == total {
			return nil // one symbol: the caller uses RLE
		}
		if cnt[s] == 0 {
			norm[s] = 0
			continue
		}
		if cnt[s] <= lowThreshold {
			norm[s] = lowProbCount
			still--
			continue
		}
		proba := int16((uint64(cnt[s]) * step) >> scale)
		if proba < 8 {
			restToBeat := vStep * rtb[proba]
			if uint64(cnt[s])*step-uint64(proba)<<scale > restToBeat {
				proba++
			}
		}
		if proba > largestP {
			largestP, largest = proba, s
		}
		norm[s] = proba
		still -= int(proba)
	}
	if -still >= int(norm[largest]>>1) {
		return fseNormalizeM2(norm, tableLog, cnt, total, maxSym, lowProbCount)
	}
	norm[largest] += int16(still)
	return nil
}

// fseNormalizeM2 is the fallback normalisation for skewed counts.
func fseNormalizeM2(norm []int16, tableLog uint, cnt []uint32, total int, maxSym int, lowProbCount int16) error {
	const notYet = -2
	distributed := uint32(0)
	tot := uint64(total)
	lowThreshold := uint32(tot >> tableLog)
	lowOne := uint32((tot * 3) >> (tableLog + 1))
	for s := 0; s <= maxSym; s++ {
		switch {
		case cnt[s] == 0:
			norm[s] = 0
		case cnt[s] <= lowThreshold:
			norm[s] = lowProbCount
			distributed++
			tot -= uint64(cnt[s])
		case cnt[s] <= lowOne:
			norm[s] = 1
			distributed++
			tot -= uint64(cnt[s])
		default:
			norm[s] = notYet
		}
	}
	toDistribute := uint32(1)<<tableLog - distributed
	if toDistribute == 0 {
		return nil
	}
	if tot/uint64(toDistribute) > uint64(lowOne) {
		lowOne = uint32((tot * 3) / (uint64(toDistribute) * 2))
		for s := 0; s <= maxSym; s++ {
			if norm[s] == notYet && cnt[s] <= lowOne {
				norm[s] = 1
				distributed++
				tot -= uint64(cnt[s])
			}
		}
		toDistribute = uint32(1)<<tableLog - distributed
	}
	if distributed == uint32(maxSym+1) {
		maxV, maxC := 0, uint32(0)
		for s := 0; s <= maxSym; s++ {
			if cnt[s] > maxC {
				maxV, maxC = s, cnt[s]
			}
		}
		norm[maxV] += int16(toDistribute)
		return nil
	}
	if tot == 0 {
		for s := 0; toDistribute > 0; s = (s + 1) % (maxSym + 1) {
			if norm[s] > 0 {
				toDistribute--
				norm[s]++
			}
		}
		return nil
	}
	vStepLog := 62 - tableLog
	mid := uint64(1)<<(vStepLog-1) - 1
	hi, lo := bits.Mul64(uint64(1)<<vStepLog, uint64(toDistribute))
	lo, carry := bits.Add64(lo, mid, 0)
	hi += carry
	rStep, _ := bits.Div64(hi, lo, tot)
	tmpTotal := mid
	for s := 0; s <= maxSym; s++ {
		if norm[s] == notYet {
			end := tmpTotal + uint64(cnt[s])*rStep
			weight := uint32(end>>vStepLog) - uint32(tmpTotal>>vStepLog)
			if weight < 1 {
				return errNormalize
			}
			norm[s] = int16(weight)
			tmpTotal = end
		}
	}
	return nil
}

// fseWriteNCount writes the table description of norm.
func fseWriteNCount(out []byte, norm []int16, maxSym int, tableLog uint) []byte {
	tableSize := 1 << tableLog
	var bitStream uint32
	bitCount := uint(0)
	bitStream += uint32(tableLog-fseMinTableLog) << bitCount
	bitCount += 4
	remaining := tableSize + 1
	threshold := tableSize
	nbBits := int(tableLog) + 1
	symbol := 0
	previousIs0 := false
	flush16 := func() {
		out = append(out, byte(bitStream), byte(bitStream>>8))
		bitStream >>= 16
	}
	for symbol <= maxSym && remaining > 1 {
		if previousIs0 {
			start := symbol
			for symbol <= maxSym && norm[symbol] == 0 {
				symbol++
			}
			if symbol == maxSym+1 {
				break
			}
			for symbol >= start+24 {
				start += 24
				bitStream += 0xFFFF << bitCount
				flush16()
			}
			for symbol >= start+3 {
				start += 3
				bitStream += 3 << bitCount
				bitCount += 2
			}
			bitStream += uint32(symbol-start) << bitCount
			bitCount += 2
			if bitCount > 16 {
				flush16()
				bitCount -= 16
			}
		}
		c := int(norm[symbol])
		symbol++
		maxv := (2*threshold - 1) - remaining
		if c < 0 {
			remaining += c
		} else {
			remaining -= c
		}
		c++
		if c >= threshold {
			c += maxv
		}
		bitStream += uint32(c) << bitCount
		bitCount += uint(nbBits)
		if c < maxv {
			bitCount--
		}
		previousIs0 = c == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		if bitCount > 16 {
			flush16()
			bitCount -= 16
		}
	}
	out = append(out, byte(bitStream), byte(bitStream>>8))
	return out[:len(out)-2+int(bitCount+7)/8]
}

// fseCTable is an FSE encoding table.
type fseCTable struct {
	tableLog   uint
	maxSym     int
	stateTable []uint16
	symbolTT   []fseSymbolTransform
}

type fseSymbolTransform struct {
	deltaFindState int32
	deltaNbBits    uint32
}

// buildFSECTable spreads the symbols over the table and derives the
// encoding transforms, as FSE_buildCTable_wksp does.
func buildFSECTable(norm []int16, maxSym int, tableLog uint) *fseCTable {
	tableSize := 1 << tableLog
	mask := tableSize - 1
	step := (tableSize >> 1) + (tableSize >> 3) + 3
	ct := &fseCTable{tableLog: tableLog, maxSym: maxSym,
		stateTable: make([]uint16, tableSize), symbolTT: make([]fseSymbolTransform, maxSym+1)}
	cumul := make([]int, maxSym+2)
	tableSymbol := make([]byte, tableSize)
	high := tableSize - 1
	for u := 1; u <= maxSym+1; u++ {
		if norm[u-1] == -1 {
			cumul[u] = cumul[u-1] + 1
			tableSymbol[high] = byte(u - 1)
			high--
		} else {
			cumul[u] = cumul[u-1] + int(norm[u-1])
		}
	}
	pos := 0
	for s := 0; s <= maxSym; s++ {
		for i := 0; i < int(norm[s]); i++ {
			tableSymbol[pos] = byte(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	for u := 0; u < tableSize; u++ {
		s := tableSymbol[u]
		ct.stateTable[cumul[s]] = uint16(tableSize + u)
		cumul[s]++
	}
	total := 0
	for s := 0; s <= maxSym; s++ {
		switch n := int(norm[s]); n {
		case 0:
			ct.symbolTT[s].deltaNbBits = uint32((tableLog+1)<<16) - uint32(tableSize)
		case -1, 1:
			ct.symbolTT[s].deltaNbBits = uint32(tableLog<<16) - uint32(tableSize)
			ct.symbolTT[s].deltaFindState = int32(total - 1)
			total++
		default:
			maxBitsOut := tableLog - highbit(uint32(n-1))
			minStatePlus := uint32(n) << maxBitsOut
			ct.symbolTT[s].deltaNbBits = uint32(maxBitsOut<<16) - minStatePlus
			ct.symbolTT[s].deltaFindState = int32(total - n)
			total += n
		}
	}
	return ct
}

// rleFSECTable encodes one symbol in no bits.
func rleFSECTable(sym int) *fseCTable {
	return &fseCTable{tableLog: 0, maxSym: sym, stateTable: make([]uint16, 2), symbolTT: make([]fseSymbolTransform, sym+1)}
}

type fseState struct {
	value uint32
	ct    *fseCTable
}

// start sets the state for the first symbol encoded (the last decoded).
func (s *fseState) start(ct *fseCTable, sym int) {
	s.ct = ct
	tt := ct.symbolTT[sym]
	nbBitsOut := (tt.deltaNbBits + 1<<15) >> 16
	v := nbBitsOut<<16 - tt.deltaNbBits
	s.value = uint32(ct.stateTable[int32(v>>nbBitsOut)+tt.deltaFindState])
}

func (s *fseState) encode(w *bitWriter, sym int) {
	tt := s.ct.symbolTT[sym]
	nbBitsOut := (s.value + tt.deltaNbBits) >> 16
	w.add(uint64(s.value), uint(nbBitsOut))
	s.value = uint32(s.ct.stateTable[int32(s.value>>nbBitsOut)+tt.deltaFindState])
}

func (s *fseState) flush(w *bitWriter) {
	w.add(uint64(s.value), s.ct.tableLog)
}

// bitCost is FSE_bitCost: the approximate cost of sym in 1/256 bits.
func (ct *fseCTable) bitCost(sym int, accuracyLog uint) uint32 {
	tt := ct.symbolTT[sym]
	minNbBits := tt.deltaNbBits >> 16
	threshold := (minNbBits + 1) << 16
	tableSize := uint32(1) << ct.tableLog
	delta := threshold - (tt.deltaNbBits + tableSize)
	norm := (delta << accuracyLog) >> ct.tableLog
	return (minNbBits+1)<<accuracyLog - norm
}
