package zstdexact

import (
	"encoding/binary"
	"math/bits"
)

// startIndex is the table index libzstd gives the first byte of a frame:
// index 0 marks an empty table slot, and matches start above it.
const startIndex = 2

// matchState holds the match finder's tables and window for one frame.
// Positions are offsets in src; the tables hold position + startIndex.
type matchState struct {
	p            params
	src          []byte
	hashTable    []uint32
	chainTable   []uint32
	nextToUpdate uint32 // the first index not yet in the tables
	lowLimit     uint32 // the lowest index a match may start at
	dictLimit    uint32 // the lowest index of the current prefix
	lazySkipping bool   // inserting only searched positions, after a long run without matches
	row          *rowState

	// The optimal strategies' state (bt.go, opt.go). Their chainTable
	// is the binary tree. base is the index of src[0]: startIndex, moved
	// on by btultra2's first pass.
	base       uint32
	hashTable3 []uint32
	hashLog3   uint
	opt        *optState
}

func newMatchState(p params, src []byte) *matchState {
	ms := &matchState{p: p, src: src, nextToUpdate: startIndex, lowLimit: startIndex, dictLimit: startIndex, base: startIndex}
	ms.hashTable = make([]uint32, 1<<p.hashLog)
	if p.strat >= stratBtopt {
		ms.chainTable = make([]uint32, 1<<p.chainLog)
		if p.minMatch == 3 {
			ms.hashLog3 = min(hashLog3M, p.windowLog)
			ms.hashTable3 = make([]uint32, 1<<ms.hashLog3)
		}
		ms.opt = newOptState()
	} else if p.useRowMatchFinder() {
		ms.row = newRowState(p)
	} else {
		ms.chainTable = make([]uint32, 1<<p.chainLog)
	}
	return ms
}

// sequence is one match with the literals before it, as libzstd's
// sequence store keeps it: offBase 1 to 3 names a repeated offset, and
// more is the offset plus 3; mlBase is the match length less 3.
type sequence struct {
	litLen, offBase, mlBase uint32
}

// seqStore collects a block's sequences and literals.
type seqStore struct {
	seqs []sequence
	lits []byte
}

func (s *seqStore) reset() {
	s.seqs = s.seqs[:0]
	s.lits = s.lits[:0]
}

func (s *seqStore) store(lits []byte, offBase uint32, matchLen int) {
	s.lits = append(s.lits, lits...)
	s.seqs = append(s.seqs, sequence{uint32(len(lits)), offBase, uint32(matchLen - 3)})
}

const repcode1 = 1 // offBase of the most recent offset

func read32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// count is how many bytes from a on equal those from b (b < a), not
// reading at or past limit.
func count(src []byte, a, b, limit int) int {
	n := 0
	for a+n+8 <= limit {
		if x := binary.LittleEndian.Uint64(src[a+n:]) ^ binary.LittleEndian.Uint64(src[b+n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for a+n < limit && src[a+n] == src[b+n] {
		n++
	}
	return n
}

// hashPos hashes the mls bytes at src[i:] into hashLog bits, as libzstd's
// ZSTD_hashPtr does for 4, 5 and 6 bytes.
func hashPos(src []byte, i int, hashLog, mls uint) uint32 {
	switch mls {
	case 5:
		return uint32(((binary.LittleEndian.Uint64(src[i:]) << 24) * 889523592379) >> (64 - hashLog))
	case 6:
		return uint32(((binary.LittleEndian.Uint64(src[i:]) << 16) * 227718039650203) >> (64 - hashLog))
	}
	return (read32(src, i) * 2654435761) >> (32 - hashLog)
}

// insertAndFind adds the positions from nextToUpdate up to pos to the hash
// chains (just one of them while lazily skipping) and returns the index
// of the latest position sharing pos's hash.
func (ms *matchState) insertAndFind(pos int, mls uint) uint32 {
	chainMask := uint32(1)<<ms.p.chainLog - 1
	target := uint32(pos + startIndex)
	for idx := ms.nextToUpdate; idx < target; idx++ {
		h := hashPos(ms.src, int(idx-startIndex), ms.p.hashLog, mls)
		ms.chainTable[idx&chainMask] = ms.hashTable[h]
		ms.hashTable[h] = idx
		if ms.lazySkipping {
			break
		}
	}
	ms.nextToUpdate = target
	return ms.hashTable[hashPos(ms.src, pos, ms.p.hashLog, mls)]
}

// hcFindBest searches the hash chain at pos for the longest match of 4
// or more bytes ending before limit; it returns 3 when there is none.
func (ms *matchState) hcFindBest(pos, limit int, mls uint) (ml int, offBase uint32) {
	src := ms.src
	chainSize := uint32(1) << ms.p.chainLog
	chainMask := chainSize - 1
	curr := uint32(pos + startIndex)
	maxDistance := uint32(1) << ms.p.windowLog
	lowLimit := ms.lowLimit
	if curr-lowLimit > maxDistance {
		lowLimit = curr - maxDistance
	}
	minChain := uint32(0)
	if curr > chainSize {
		minChain = curr - chainSize
	}
	attempts := 1 << ms.p.searchLog
	ml = 3
	offBase = 999999999
	matchIndex := ms.insertAndFind(pos, mls)
	for ; matchIndex >= lowLimit && attempts > 0; attempts-- {
		m := int(matchIndex - startIndex)
		cur := 0
		// Only a match that agrees at the byte that would make it longer
		// than the best so far is counted.
		if read32(src, m+ml-3) == read32(src, pos+ml-3) {
			cur = count(src, pos, m, limit)
		}
		if cur > ml {
			ml = cur
			offBase = curr - matchIndex + 3
			if pos+cur == limit {
				break
			}
		}
		if matchIndex <= minChain {
			break
		}
		matchIndex = ms.chainTable[matchIndex&chainMask]
	}
	return ml, offBase
}

func (ms *matchState) searchMax(pos, limit int, mls uint) (int, uint32) {
	if ms.row != nil {
		return ms.rowFindBest(pos, limit, mls)
	}
	return ms.hcFindBest(pos, limit, mls)
}

// lowestPrefixIndex is the lowest index a repeated offset may reach from
// index curr.
func (ms *matchState) lowestPrefixIndex(curr uint32) uint32 {
	maxDistance := uint32(1) << ms.p.windowLog
	if curr-ms.dictLimit > maxDistance {
		return curr - maxDistance
	}
	return ms.dictLimit
}

// compressLazy parses src[start:end] into ss the way libzstd's greedy
// (depth 0), lazy (1) and lazy2 (2) strategies do without a dictionary,
// and returns the trailing literals' length. rep holds the repeated
// offsets, updated for the next block.
func (ms *matchState) compressLazy(ss *seqStore, rep *[3]uint32, start, end int, depth int) int {
	src := ms.src
	const kSearchStrength = 8
	const kLazySkippingStep = 8
	ip, anchor := start, start
	ilimit := end - 8
	if ms.row != nil {
		ilimit -= rowHashCacheSize
	}
	prefixLowest := int(ms.dictLimit) - startIndex
	mls := min(max(ms.p.minMatch, 4), 6)
	offset1, offset2 := rep[0], rep[1]
	var saved1, saved2 uint32

	if ip == prefixLowest {
		ip++ // the first byte of a frame has nothing to match
	}
	{
		curr := uint32(ip + startIndex)
		maxRep := curr - ms.lowestPrefixIndex(curr)
		if offset2 > maxRep {
			saved2, offset2 = offset2, 0
		}
		if offset1 > maxRep {
			saved1, offset1 = offset1, 0
		}
	}
	ms.lazySkipping = false
	if ms.row != nil {
		ms.rowFillHashCache(mls, ms.nextToUpdate, ilimit)
	}

	for ip < ilimit {
		matchLen := 0
		offBase := uint32(repcode1)
		mstart := ip + 1

		// a repeat of the last offset one byte on
		if offset1 > 0 && read32(src, ip+1-int(offset1)) == read32(src, ip+1) {
			matchLen = count(src, ip+1+4, ip+1+4-int(offset1), end) + 4
		}
		if depth > 0 || matchLen == 0 {
			if ml2, ob := ms.searchMax(ip, end, mls); ml2 > matchLen {
				matchLen, mstart, offBase = ml2, ip, ob
			}
			if matchLen < 4 {
				step := (ip-anchor)>>kSearchStrength + 1
				ip += step
				// After long stretches without a match, stop filling the
				// tables at every position.
				ms.lazySkipping = step > kLazySkippingStep
				continue
			}
		}

		// look one (lazy2: two) bytes further for a better match
		for depth >= 1 && ip < ilimit {
			ip++
			if offBase != 0 && offset1 > 0 && read32(src, ip) == read32(src, ip-int(offset1)) {
				mlRep := count(src, ip+4, ip+4-int(offset1), end) + 4
				gain2 := mlRep * 3
				gain1 := matchLen*3 - int(highbit(offBase)) + 1
				if mlRep >= 4 && gain2 > gain1 {
					matchLen, offBase, mstart = mlRep, repcode1, ip
				}
			}
			if ml2, ob := ms.searchMax(ip, end, mls); ml2 >= 4 {
				gain2 := ml2*4 - int(highbit(ob))
				gain1 := matchLen*4 - int(highbit(offBase)) + 4
				if gain2 > gain1 {
					matchLen, offBase, mstart = ml2, ob, ip
					continue
				}
			}
			if depth == 2 && ip < ilimit {
				ip++
				if offBase != 0 && offset1 > 0 && read32(src, ip) == read32(src, ip-int(offset1)) {
					mlRep := count(src, ip+4, ip+4-int(offset1), end) + 4
					gain2 := mlRep * 4
					gain1 := matchLen*4 - int(highbit(offBase)) + 1
					if mlRep >= 4 && gain2 > gain1 {
						matchLen, offBase, mstart = mlRep, repcode1, ip
					}
				}
				if ml2, ob := ms.searchMax(ip, end, mls); ml2 >= 4 {
					gain2 := ml2*4 - int(highbit(ob))
					gain1 := matchLen*4 - int(highbit(offBase)) + 7
					if gain2 > gain1 {
						matchLen, offBase, mstart = ml2, ob, ip
						continue
					}
				}
			}
			break
		}

		if offBase > 3 {
			// extend the match backwards over equal literals
			off := int(offBase - 3)
			for mstart > anchor && mstart-off > prefixLowest && src[mstart-1] == src[mstart-off-1] {
				mstart--
				matchLen++
			}
			offset2, offset1 = offset1, offBase-3
		}
		ss.store(src[anchor:mstart], offBase, matchLen)
		ip = mstart + matchLen
		anchor = ip
		if ms.lazySkipping {
			if ms.row != nil {
				ms.rowFillHashCache(mls, ms.nextToUpdate, ilimit)
			}
			ms.lazySkipping = false
		}

		// repeats of the offset before last, straight after the match
		for ip <= ilimit && offset2 > 0 && read32(src, ip) == read32(src, ip-int(offset2)) {
			matchLen = count(src, ip+4, ip+4-int(offset2), end) + 4
			offset1, offset2 = offset2, offset1
			ss.store(nil, repcode1, matchLen)
			ip += matchLen
			anchor = ip
		}
	}

	if saved1 != 0 && offset1 != 0 {
		saved2 = saved1
	}
	rep[0], rep[1] = offset1, offset2
	if offset1 == 0 {
		rep[0] = saved1
	}
	if offset2 == 0 {
		rep[1] = saved2
	}
	return end - anchor
}
