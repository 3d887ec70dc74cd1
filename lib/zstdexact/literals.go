package zstdexact

// hufRepeat says whether the previous block's Huffman table may be reused.
type hufRepeat int

const (
	hufRepeatNone  hufRepeat = iota // no table
	hufRepeatCheck                  // a table, to be checked against the counts
	hufRepeatValid                  // a table known to cover every byte (dictionaries only)
)

type hufState struct {
	table  *hufCTable
	repeat hufRepeat
}

func minGain(n int, s strategy) int {
	minlog := uint(6)
	if s >= stratBtultra {
		minlog = uint(s) - 1
	}
	return n>>minlog + 2
}

// rawLiterals appends lits stored as they are.
func rawLiterals(out []byte, lits []byte) []byte {
	return append(literalsHeader(out, 0, len(lits)), lits...)
}

// literalsHeader appends the header of a raw (kind 0) or RLE (kind 1)
// literals section of n bytes.
func literalsHeader(out []byte, kind int, n int) []byte {
	switch {
	case n <= 31:
		return append(out, byte(kind+n<<3))
	case n <= 4095:
		v := kind + 1<<2 + n<<4
		return append(out, byte(v), byte(v>>8))
	}
	v := kind + 3<<2 + n<<4
	return append(out, byte(v), byte(v>>8), byte(v>>16))
}

func allSame(b []byte) bool {
	for _, c := range b[1:] {
		if c != b[0] {
			return false
		}
	}
	return true
}

// compressLiterals appends the literals section as ZSTD_compressLiterals
// writes it and returns the Huffman state for the next block.
func compressLiterals(out []byte, lits []byte, prev hufState, s strategy, suspect bool) ([]byte, hufState) {
	n := len(lits)
	lhSize := 3
	if n >= 1<<10 {
		lhSize++
	}
	if n >= 16<<10 {
		lhSize++
	}
	singleStream := n < 256
	minLits := 8 << min(9-int(s), 3)
	if prev.repeat == hufRepeatValid {
		minLits = 6
	}
	if n < minLits {
		return rawLiterals(out, lits), prev
	}
	repeat := prev.repeat
	preferRepeat := s < stratLazy && n <= 1024
	if repeat == hufRepeatValid && lhSize == 3 {
		singleStream = true
	}
	start := len(out)
	body := append(out, make([]byte, lhSize)...)
	body, cLit, repeat, next := hufCompress(body, lits, singleStream, prev, repeat, preferRepeat, suspect, s)
	if cLit <= 0 || cLit >= n-minGain(n, s) {
		return rawLiterals(out[:start], lits), prev
	}
	if cLit == 1 && (n >= 8 || allSame(lits)) {
		return append(literalsHeader(out[:start], 1, n), lits[0]), prev
	}
	hType := 2 // compressed
	if repeat != hufRepeatNone {
		hType = 3 // the previous table
	} else {
		next.repeat = hufRepeatCheck
	}
	h := body[start:]
	streams := 0
	if !singleStream {
		streams = 1
	}
	switch lhSize {
	case 3:
		v := uint32(hType) + uint32(streams)<<2 + uint32(n)<<4 + uint32(cLit)<<14
		h[0], h[1], h[2] = byte(v), byte(v>>8), byte(v>>16)
	case 4:
		v := uint32(hType) + 2<<2 + uint32(n)<<4 + uint32(cLit)<<18
		h[0], h[1], h[2], h[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	case 5:
		v := uint32(hType) + 3<<2 + uint32(n)<<4 + uint32(cLit)<<22
		h[0], h[1], h[2], h[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		h[4] = byte(cLit >> 10)
	}
	return body, next
}

// hufCompress appends the Huffman-coded literals (table description and
// streams) as HUF_compress_internal does and returns their size: 0 for
// "store them raw", 1 for "all one byte" (the byte appended).
func hufCompress(out []byte, src []byte, single bool, prev hufState, repeat hufRepeat, preferRepeat, suspect bool, s strategy) ([]byte, int, hufRepeat, hufState) {
	start := len(out)
	next := prev
	encode := func(ct *hufCTable, o []byte) ([]byte, int) {
		before := len(o)
		if single {
			o = hufEncode1(o, src, ct)
		} else {
			o = hufEncode4(o, src, ct)
		}
		if o == nil || len(o) == before {
			return out[:start], 0
		}
		if len(o)-start >= len(src)-1 {
			return out[:start], 0
		}
		return o, len(o) - start
	}
	if preferRepeat && repeat == hufRepeatValid {
		o, n := encode(prev.table, out)
		return o, n, repeat, next
	}
	const sample, ratio = 4096, 10
	var cnt [256]uint32
	if suspect && len(src) >= sample*ratio {
		_, a := histogram(cnt[:], src[:sample])
		_, b := histogram(cnt[:], src[len(src)-sample:])
		if a+b <= (2*sample)>>7+4 {
			return out, 0, repeat, next
		}
	}
	maxSym, largest := histogram(cnt[:], src)
	if largest == len(src) {
		return append(out, src[0]), 1, repeat, next
	}
	if largest <= len(src)>>7+4 {
		return out, 0, repeat, next
	}
	if repeat == hufRepeatCheck && !prev.table.validFor(cnt[:], maxSym) {
		repeat = hufRepeatNone
	}
	if preferRepeat && repeat != hufRepeatNone {
		o, n := encode(prev.table, out)
		return o, n, repeat, next
	}
	huffLog := fseOptimalTableLog(litHufLog, len(src), maxSym, 1)
	if s >= stratBtultra {
		huffLog = hufOptimalDepth(cnt[:], maxSym, litHufLog)
	}
	ct := buildHufCTable(cnt[:], maxSym, huffLog)
	desc, err := writeHufCTable(nil, ct)
	if err != nil {
		return out, -1, repeat, next
	}
	if repeat != hufRepeatNone {
		oldSize := prev.table.estimateSize(cnt[:], maxSym)
		newSize := ct.estimateSize(cnt[:], maxSym)
		if oldSize <= len(desc)+newSize || len(desc)+12 >= len(src) {
			o, n := encode(prev.table, out)
			return o, n, repeat, next
		}
	}
	if len(desc)+12 >= len(src) {
		return out, 0, repeat, next
	}
	repeat = hufRepeatNone
	next.table = ct
	o, n := encode(ct, append(out, desc...))
	return o, n, repeat, next
}

// hufOptimalDepth is the table log the strongest strategies give the
// literals' code (HUF_optimalTableLog with HUF_flags_optimalDepth): from
// the least that fits the symbols up, the log whose table description
// and coded size together are smallest, stopping once that grows or the
// code no longer gets deeper.
func hufOptimalDepth(cnt []uint32, maxSym int, maxLog uint) uint {
	card := uint32(0)
	for _, c := range cnt[:maxSym+1] {
		if c != 0 {
			card++
		}
	}
	minLog := highbit(card) + 1
	optSize, optLog := int(^uint(0)>>1)-1, maxLog
	for guess := minLog; guess <= maxLog; guess++ {
		ct := buildHufCTable(cnt, maxSym, guess)
		if ct.tableLog < guess && guess > minLog {
			break
		}
		desc, err := writeHufCTable(nil, ct)
		if err != nil {
			continue
		}
		size := ct.estimateSize(cnt, maxSym) + len(desc)
		if size > optSize+1 {
			break
		}
		if size < optSize {
			optSize, optLog = size, guess
		}
	}
	return optLog
}
