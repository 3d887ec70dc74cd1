package zstdexact

import "errors"

// The Huffman literal coder of libzstd: its tree building (with its
// bucket sort, whose order among equal counts decides the codes), depth
// limiting, table description and 1- and 4-stream encoding.

const (
	hufTableLogMax = 12
	hufSymbolMax   = 255
	litHufLog      = 11
)

var errHufTable = errors.New("zstdexact: Huffman table description does not fit")

// hufCTable gives each byte its code length and code.
type hufCTable struct {
	tableLog uint
	maxSym   int
	nbBits   [256]uint8
	value    [256]uint16
}

type hufNode struct {
	count  uint32
	parent uint16
	byte_  uint8
	nbBits uint8
}

const (
	rankPositionTableSize  = 192
	rankLogBucketsBegin    = rankPositionTableSize - 1 - 32 - 1 // 158
	rankDistinctCountLimit = rankLogBucketsBegin + 7            // 158 + highbit(158)
)

func hufBucket(c uint32) int {
	if c < rankDistinctCountLimit {
		return int(c)
	}
	return int(highbit(c)) + rankLogBucketsBegin
}

// hufSort orders the symbols by decreasing count: buckets of equal (or,
// for large counts, same-magnitude) counts in symbol order, the large
// buckets then sorted by libzstd's quicksort.
func hufSort(nodes []hufNode, cnt []uint32, maxSym int) {
	var base, curr [rankPositionTableSize]int
	for n := 0; n <= maxSym; n++ {
		base[hufBucket(cnt[n])]++
	}
	for n := rankPositionTableSize - 1; n > 0; n-- {
		base[n-1] += base[n]
		curr[n-1] = base[n-1]
	}
	for n := 0; n <= maxSym; n++ {
		r := hufBucket(cnt[n]) + 1
		pos := curr[r]
		curr[r]++
		nodes[pos].count = cnt[n]
		nodes[pos].byte_ = uint8(n)
	}
	for n := rankDistinctCountLimit; n < rankPositionTableSize-1; n++ {
		size := curr[n] - base[n]
		if size > 1 {
			hufQuickSort(nodes[base[n]:base[n]+size], 0, size-1)
		}
	}
}

func hufInsertionSort(a []hufNode, low, high int) {
	a = a[low : high+1]
	for i := 1; i < len(a); i++ {
		key := a[i]
		j := i - 1
		for j >= 0 && a[j].count < key.count {
			a[j+1] = a[j]
			j--
		}
		a[j+1] = key
	}
}

func hufPartition(a []hufNode, low, high int) int {
	pivot := a[high].count
	i := low - 1
	for j := low; j < high; j++ {
		if a[j].count > pivot {
			i++
			a[i], a[j] = a[j], a[i]
		}
	}
	a[i+1], a[high] = a[high], a[i+1]
	return i + 1
}

func hufQuickSort(a []hufNode, low, high int) {
	if high-low < 8 {
		hufInsertionSort(a, low, high)
		return
	}
	for low < high {
		idx := hufPartition(a, low, high)
		if idx-low < high-idx {
			hufQuickSort(a, low, idx-1)
			low = idx + 1
		} else {
			hufQuickSort(a, idx+1, high)
			high = idx - 1
		}
	}
}

// buildHufCTable builds the code for cnt (symbols 0 to maxSym, at least
// two of them present) with codes of at most maxNbBits bits.
func buildHufCTable(cnt []uint32, maxSym int, maxNbBits uint) *hufCTable {
	const startNode = hufSymbolMax + 1
	// node(i) is all[i+1]: all[0] is a barrier below the first node.
	all := make([]hufNode, 2*(hufSymbolMax+1)+1)
	nodes := all[1:]
	hufSort(nodes, cnt, maxSym)

	// the tree, unlimited in depth
	nonNull := maxSym
	for nodes[nonNull].count == 0 {
		nonNull--
	}
	lowS := nonNull
	nodeNb := startNode
	nodeRoot := nodeNb + lowS - 1
	lowN := nodeNb
	nodes[nodeNb].count = nodes[lowS].count + nodes[lowS-1].count
	nodes[lowS].parent = uint16(nodeNb)
	nodes[lowS-1].parent = uint16(nodeNb)
	nodeNb++
	lowS -= 2
	for n := nodeNb; n <= nodeRoot; n++ {
		nodes[n].count = 1 << 30
	}
	all[0].count = 1 << 31
	at := func(i int) *hufNode { return &all[i+1] } // i may be -1
	for nodeNb <= nodeRoot {
		var n1, n2 int
		if at(lowS).count < at(lowN).count {
			n1 = lowS
			lowS--
		} else {
			n1 = lowN
			lowN++
		}
		if at(lowS).count < at(lowN).count {
			n2 = lowS
			lowS--
		} else {
			n2 = lowN
			lowN++
		}
		nodes[nodeNb].count = at(n1).count + at(n2).count
		at(n1).parent = uint16(nodeNb)
		at(n2).parent = uint16(nodeNb)
		nodeNb++
	}
	nodes[nodeRoot].nbBits = 0
	for n := nodeRoot - 1; n >= startNode; n-- {
		nodes[n].nbBits = nodes[nodes[n].parent].nbBits + 1
	}
	for n := 0; n <= nonNull; n++ {
		nodes[n].nbBits = nodes[nodes[n].parent].nbBits + 1
	}

	maxNbBits = hufSetMaxHeight(nodes, nonNull, maxNbBits)

	ct := &hufCTable{tableLog: maxNbBits, maxSym: maxSym}
	var nbPerRank, valPerRank [hufTableLogMax + 2]uint16
	for n := 0; n <= nonNull; n++ {
		nbPerRank[nodes[n].nbBits]++
	}
	minv := uint16(0)
	for n := int(maxNbBits); n > 0; n-- {
		valPerRank[n] = minv
		minv += nbPerRank[n]
		minv >>= 1
	}
	for n := 0; n <= maxSym; n++ {
		ct.nbBits[nodes[n].byte_] = nodes[n].nbBits
	}
	for n := 0; n <= maxSym; n++ {
		ct.value[n] = valPerRank[ct.nbBits[n]]
		valPerRank[ct.nbBits[n]]++
	}
	return ct
}

// hufSetMaxHeight limits the code lengths to target bits, moving the
// excess onto shorter codes as HUF_setMaxHeight does.
func hufSetMaxHeight(nodes []hufNode, lastNonNull int, target uint) uint {
	largestBits := uint(nodes[lastNonNull].nbBits)
	if largestBits <= target {
		return largestBits
	}
	totalCost := 0
	baseCost := 1 << (largestBits - target)
	n := lastNonNull
	for uint(nodes[n].nbBits) > target {
		totalCost += baseCost - 1<<(largestBits-uint(nodes[n].nbBits))
		nodes[n].nbBits = uint8(target)
		n--
	}
	for uint(nodes[n].nbBits) == target {
		n--
	}
	totalCost >>= largestBits - target

	const noSymbol = -1
	var rankLast [hufTableLogMax + 2]int
	for i := range rankLast {
		rankLast[i] = noSymbol
	}
	{
		currentNbBits := target
		for pos := n; pos >= 0; pos-- {
			if uint(nodes[pos].nbBits) >= currentNbBits {
				continue
			}
			currentNbBits = uint(nodes[pos].nbBits)
			rankLast[target-currentNbBits] = pos
		}
	}
	for totalCost > 0 {
		nBitsToDecrease := highbit(uint32(totalCost)) + 1
		for ; nBitsToDecrease > 1; nBitsToDecrease-- {
			highPos := rankLast[nBitsToDecrease]
			lowPos := rankLast[nBitsToDecrease-1]
			if highPos == noSymbol {
				continue
			}
			if lowPos == noSymbol {
				break
			}
			if nodes[highPos].count <= 2*nodes[lowPos].count {
				break
			}
		}
		for nBitsToDecrease <= hufTableLogMax && rankLast[nBitsToDecrease] == noSymbol {
			nBitsToDecrease++
		}
		totalCost -= 1 << (nBitsToDecrease - 1)
		nodes[rankLast[nBitsToDecrease]].nbBits++
		if rankLast[nBitsToDecrease-1] == noSymbol {
			rankLast[nBitsToDecrease-1] = rankLast[nBitsToDecrease]
		}
		if rankLast[nBitsToDecrease] == 0 {
			rankLast[nBitsToDecrease] = noSymbol
		} else {
			rankLast[nBitsToDecrease]--
			if uint(nodes[rankLast[nBitsToDecrease]].nbBits) != target-nBitsToDecrease {
				rankLast[nBitsToDecrease] = noSymbol
			}
		}
	}
	for totalCost < 0 {
		if rankLast[1] == noSymbol {
			for uint(nodes[n].nbBits) == target {
				n--
			}
			nodes[n+1].nbBits--
			rankLast[1] = n + 1
			totalCost++
			continue
		}
		nodes[rankLast[1]+1].nbBits--
		rankLast[1]++
		totalCost++
	}
	return target
}

// writeHufCTable writes the table description: the weights of symbols 0
// to maxSym-1, FSE-compressed when that is smaller, else 4 bits each.
func writeHufCTable(out []byte, ct *hufCTable) ([]byte, error) {
	maxSym := ct.maxSym
	var weights [hufSymbolMax + 1]byte
	for n := 0; n < maxSym; n++ {
		if b := ct.nbBits[n]; b != 0 {
			weights[n] = byte(ct.tableLog + 1 - uint(b))
		}
	}
	if comp, ok := compressHufWeights(weights[:maxSym]); ok && len(comp) > 1 && len(comp) < maxSym/2 {
		out = append(out, byte(len(comp)))
		return append(out, comp...), nil
	}
	if maxSym > 128 {
		return nil, errHufTable
	}
	out = append(out, byte(128+maxSym-1))
	weights[maxSym] = 0
	for n := 0; n < maxSym; n += 2 {
		out = append(out, weights[n]<<4+weights[n+1])
	}
	return out, nil
}

// compressHufWeights FSE-compresses the weights; ok is false when that
// is not possible (libzstd's return of 0), and a 1-byte result stands for
// its "single symbol" answer.
func compressHufWeights(w []byte) ([]byte, bool) {
	if len(w) <= 1 {
		return nil, false
	}
	var cnt [hufTableLogMax + 1]uint32
	maxSym, maxCount := histogram(cnt[:], w)
	if maxCount == len(w) {
		return []byte{0}, true
	}
	if maxCount == 1 {
		return nil, false
	}
	tableLog := fseOptimalTableLog(6, len(w), maxSym, 2)
	var norm [hufTableLogMax + 1]int16
	if err := fseNormalize(norm[:], tableLog, cnt[:], len(w), maxSym, false); err != nil {
		return nil, false
	}
	out := fseWriteNCount(nil, norm[:], maxSym, tableLog)
	ct := buildFSECTable(norm[:], maxSym, tableLog)
	stream := fseCompress(w, ct)
	if stream == nil {
		return nil, false
	}
	return append(out, stream...), true
}

// fseCompress encodes src with two interleaved states, last byte first,
// as FSE_compress_usingCTable does.
func fseCompress(src []byte, ct *fseCTable) []byte {
	if len(src) <= 2 {
		return nil
	}
	var w bitWriter
	var s1, s2 fseState
	ip := len(src)
	if len(src)&1 != 0 {
		ip--
		s1.start(ct, int(src[ip]))
		ip--
		s2.start(ct, int(src[ip]))
		ip--
		s1.encode(&w, int(src[ip]))
	} else {
		ip--
		s2.start(ct, int(src[ip]))
		ip--
		s1.start(ct, int(src[ip]))
	}
	for ip > 0 {
		ip--
		s2.encode(&w, int(src[ip]))
		ip--
		s1.encode(&w, int(src[ip]))
	}
	s2.flush(&w)
	s1.flush(&w)
	return w.close()
}

// histogram counts the bytes of src into cnt and returns the largest
// symbol present and the largest count.
func histogram(cnt []uint32, src []byte) (maxSym, maxCount int) {
	clear(cnt)
	for _, b := range src {
		cnt[b]++
	}
	maxSym = len(cnt) - 1
	for maxSym > 0 && cnt[maxSym] == 0 {
		maxSym--
	}
	for _, c := range cnt[:maxSym+1] {
		maxCount = max(maxCount, int(c))
	}
	return maxSym, maxCount
}

// hufEncode1 appends src as one Huffman stream (last byte first); it
// returns nil where libzstd would find the stream does not fit.
func hufEncode1(out []byte, src []byte, ct *hufCTable) []byte {
	w := bitWriter{out: out}
	for i := len(src) - 1; i >= 0; i-- {
		s := src[i]
		w.add(uint64(ct.value[s]), uint(ct.nbBits[s]))
	}
	return w.close()
}

// hufEncode4 appends src as four Huffman streams after their jump table;
// nil when a stream would exceed 64 KiB or src is too short.
func hufEncode4(out []byte, src []byte, ct *hufCTable) []byte {
	if len(src) < 12 {
		return nil
	}
	seg := (len(src) + 3) / 4
	start := len(out)
	out = append(out, 0, 0, 0, 0, 0, 0)
	for i := 0; i < 4; i++ {
		lo, hi := i*seg, min((i+1)*seg, len(src))
		if i == 3 {
			hi = len(src)
		}
		before := len(out)
		out = hufEncode1(out, src[lo:hi], ct)
		n := len(out) - before
		if n > 65535 {
			return nil
		}
		if i < 3 {
			out[start+2*i] = byte(n)
			out[start+2*i+1] = byte(n >> 8)
		}
	}
	return out
}

func (ct *hufCTable) estimateSize(cnt []uint32, maxSym int) int {
	n := 0
	for s := 0; s <= maxSym; s++ {
		n += int(ct.nbBits[s]) * int(cnt[s])
	}
	return n >> 3
}

func (ct *hufCTable) validFor(cnt []uint32, maxSym int) bool {
	if ct.maxSym < maxSym {
		return false
	}
	for s := 0; s <= maxSym; s++ {
		if cnt[s] != 0 && ct.nbBits[s] == 0 {
			return false
		}
	}
	return true
}
