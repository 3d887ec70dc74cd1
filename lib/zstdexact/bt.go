package zstdexact

// libzstd's binary-tree match finder, as its optimal parser (btopt,
// btultra, btultra2) uses it without a dictionary. Each position's hash
// bucket is the root of a binary tree of the earlier positions sharing
// the hash, sorted by the bytes that follow them; a search walks the
// tree from the newest position down, inserting the searched position
// as it goes, and reports every match longer than the ones before it.
// A second small table hashes 3 bytes, for the 3-byte matches the
// strategies with a minimum match of 3 look for.
//
// The tree keeps two slots a position (its smaller and larger child) in
// a table indexed by the position modulo its size; positions that fell
// out of it end a walk.

const (
	optNum    = 1 << 12    // the longest stretch the parser prices at once
	optSize   = optNum + 3 // its tables' size
	maxPrice  = 1 << 30    // the price of a position not reached yet
	hashLog3M = 17         // the largest 3-byte hash table
)

// btMatch is one match found: offBase as the sequence store has it (1
// to 3 name repeated offsets), and its length.
type btMatch struct {
	off, len uint32
}

// hash3 hashes the 3 bytes at src[i:] into h bits (ZSTD_hash3Ptr).
func hash3(src []byte, i int, h uint) uint32 {
	return ((read32(src, i) << 8) * 506832829) >> (32 - h)
}

// lowestMatchIndex is the lowest index a match may reach from index
// curr: the window's low limit, or as far back as the window reaches.
func (ms *matchState) lowestMatchIndex(curr uint32) uint32 {
	maxDistance := uint32(1) << ms.p.windowLog
	if curr-ms.lowLimit > maxDistance {
		return curr - maxDistance
	}
	return ms.lowLimit
}

// btMinMatch is the byte count libzstd hashes and matches at least: the
// level's minimum match length, within 3 to 6.
func (ms *matchState) btMinMatch() uint {
	return min(max(ms.p.minMatch, 3), 6)
}

// btSet writes v into the tree slot at i; -1 is the slot of no node,
// where libzstd writes into a dummy.
func (ms *matchState) btSet(i int, v uint32) {
	if i >= 0 {
		ms.chainTable[i] = v
	}
}

// btCursor is a walk down the binary tree of one position: the slots the
// next smaller and next larger node go into, and how many bytes the
// position is known to share with each side (the nodes below share at
// least as many).
type btCursor struct {
	smaller, larger             int
	commonSmaller, commonLarger int
}

func newBtCursor(idx, btMask uint32) btCursor {
	s := int(2 * (idx & btMask))
	return btCursor{smaller: s, larger: s + 1}
}

// known is how many bytes of the next candidate match already.
func (c *btCursor) known() int { return min(c.commonSmaller, c.commonLarger) }

// descend files the candidate at matchIndex (source offset m, sharing
// matchLength bytes with the position at pos) on the side its next byte
// sorts it to and returns the candidate below it there, or more false
// when the candidate is the last the tree's window holds.
func (ms *matchState) descend(c *btCursor, pos, m, matchLength, next int, matchIndex, btLow uint32) (below uint32, more bool) {
	src := ms.src
	if src[m+matchLength] < src[pos+matchLength] {
		ms.btSet(c.smaller, matchIndex)
		c.commonSmaller = matchLength
		if matchIndex <= btLow {
			c.smaller = -1
			return 0, false
		}
		c.smaller = next + 1
		return ms.chainTable[next+1], true
	}
	ms.btSet(c.larger, matchIndex)
	c.commonLarger = matchLength
	if matchIndex <= btLow {
		c.larger = -1
		return 0, false
	}
	c.larger = next
	return ms.chainTable[next], true
}

// closeBt ends a walk: the slots left open get no node.
func (ms *matchState) closeBt(c *btCursor) {
	ms.btSet(c.smaller, 0)
	ms.btSet(c.larger, 0)
}

// insertBt1 adds the position at index idx to its tree (ZSTD_insertBt1)
// and returns how many positions the caller may move on: more than one
// after a long repetition, whose positions would all sort alike.
func (ms *matchState) insertBt1(idx uint32, iend int, target uint32) uint32 {
	src := ms.src
	mls := ms.btMinMatch()
	pos := int(idx - ms.base)
	h := hashPos(src, pos, ms.p.hashLog, mls)
	btLog := ms.p.chainLog - 1
	btMask := uint32(1)<<btLog - 1
	matchIndex := ms.hashTable[h]
	btLow := uint32(0)
	if btMask < idx {
		btLow = idx - btMask
	}
	c := newBtCursor(idx, btMask)
	// Positions below the window as it will be at target are left out.
	windowLow := ms.lowestMatchIndex(target)
	matchEndIdx := idx + 8 + 1
	bestLength := 8
	nbCompares := 1 << ms.p.searchLog

	ms.hashTable[h] = idx
	for ; nbCompares > 0 && matchIndex >= windowLow; nbCompares-- {
		next := int(2 * (matchIndex & btMask))
		matchLength := c.known() // known equal already
		m := int(matchIndex - ms.base)
		matchLength += count(src, pos+matchLength, m+matchLength, iend)
		if matchLength > bestLength {
			bestLength = matchLength
			if uint32(matchLength) > matchEndIdx-matchIndex {
				matchEndIdx = matchIndex + uint32(matchLength)
			}
		}
		if pos+matchLength == iend {
			// Equal to the end: it cannot be sorted, and is dropped.
			break
		}
		var more bool
		if matchIndex, more = ms.descend(&c, pos, m, matchLength, next, matchIndex, btLow); !more {
			break
		}
	}
	ms.closeBt(&c)
	positions := uint32(0)
	if bestLength > 384 {
		positions = min(192, uint32(bestLength-384))
	}
	return max(positions, matchEndIdx-(idx+8))
}

// updateTree inserts the positions from nextToUpdate up to pos.
func (ms *matchState) updateTree(pos, iend int) {
	target := uint32(pos) + ms.base
	for idx := ms.nextToUpdate; idx < target; {
		idx += ms.insertBt1(idx, iend, target)
	}
	ms.nextToUpdate = target
}

// insertHash3 adds the positions from *next3 up to pos to the 3-byte
// hash table and returns the latest index sharing pos's hash.
func (ms *matchState) insertHash3(next3 *uint32, pos int) uint32 {
	target := uint32(pos) + ms.base
	for idx := *next3; idx < target; idx++ {
		ms.hashTable3[hash3(ms.src, int(idx-ms.base), ms.hashLog3)] = idx
	}
	*next3 = target
	return ms.hashTable3[hash3(ms.src, pos, ms.hashLog3)]
}

// readMinMatch is the 3 or 4 bytes at src[i:] for comparing.
func readMinMatch(src []byte, i int, n uint32) uint32 {
	if n == 3 {
		return read32(src, i) << 8
	}
	return read32(src, i)
}

// btGetAllMatches fills matches with the matches at pos of increasing
// length, the repeated offsets first, up to iLimit, and returns their
// number (ZSTD_btGetAllMatches without a dictionary). ll0 says whether
// no literals precede pos, which renames the repeated offsets;
// lengthToBeat is the least length reported.
func (ms *matchState) btGetAllMatches(matches []btMatch, next3 *uint32, pos, iLimit int, rep [3]uint32, ll0 uint32, lengthToBeat uint32) int {
	curr := uint32(pos) + ms.base
	if curr < ms.nextToUpdate {
		return 0 // inside a stretch skipped over
	}
	ms.updateTree(pos, iLimit)

	src := ms.src
	mls := ms.btMinMatch()
	sufficient := uint32(min(ms.p.targetLength, optNum-1))
	minMatch := uint32(4)
	if mls == 3 {
		minMatch = 3
	}
	h := hashPos(src, pos, ms.p.hashLog, mls)
	matchIndex := ms.hashTable[h]
	btMask := uint32(1)<<(ms.p.chainLog-1) - 1
	btLow := uint32(0)
	if btMask < curr {
		btLow = curr - btMask
	}
	windowLow := ms.lowestMatchIndex(curr)
	matchLow := max(windowLow, 1)
	c := newBtCursor(curr, btMask)
	matchEndIdx := curr + 8 + 1
	mnum := 0
	nbCompares := 1 << ms.p.searchLog
	bestLength := int(lengthToBeat) - 1

	// the repeated offsets (with no literals before, the first is
	// implied and the others and the first less one are tried)
	for repCode := ll0; repCode < 3+ll0; repCode++ {
		var repOffset uint32
		if repCode == 3 {
			repOffset = rep[0] - 1
		} else {
			repOffset = rep[repCode]
		}
		repIndex := curr - repOffset
		repLen := 0
		// repOffset 0 wraps around and is refused with the too long ones
		if repOffset-1 < curr-ms.dictLimit && repIndex >= windowLow &&
			readMinMatch(src, pos, minMatch) == readMinMatch(src, pos-int(repOffset), minMatch) {
			repLen = count(src, pos+int(minMatch), pos+int(minMatch)-int(repOffset), iLimit) + int(minMatch)
		}
		if repLen > bestLength {
			bestLength = repLen
			matches[mnum] = btMatch{repCode - ll0 + 1, uint32(repLen)}
			mnum++
			if uint32(repLen) > sufficient || pos+repLen == iLimit {
				return mnum // as good as it gets
			}
		}
	}

	// a 3-byte match, when nothing of 3 bytes was found yet
	if mls == 3 && bestLength < 3 {
		mi3 := ms.insertHash3(next3, pos)
		// (a far 3-byte match costs more than its literals)
		if mi3 >= matchLow && curr-mi3 < 1<<18 {
			mlen := count(src, pos, int(mi3-ms.base), iLimit)
			if mlen >= 3 {
				bestLength = mlen
				matches[0] = btMatch{curr - mi3 + 3, uint32(mlen)}
				mnum = 1
				if uint32(mlen) > sufficient || pos+mlen == iLimit {
					ms.nextToUpdate = curr + 1 // pos is not inserted
					return 1
				}
			}
		}
	}

	ms.hashTable[h] = curr
	for ; nbCompares > 0 && matchIndex >= matchLow; nbCompares-- {
		next := int(2 * (matchIndex & btMask))
		matchLength := c.known()
		m := int(matchIndex - ms.base)
		matchLength += count(src, pos+matchLength, m+matchLength, iLimit)
		if matchLength > bestLength {
			if uint32(matchLength) > matchEndIdx-matchIndex {
				matchEndIdx = matchIndex + uint32(matchLength)
			}
			bestLength = matchLength
			matches[mnum] = btMatch{curr - matchIndex + 3, uint32(matchLength)}
			mnum++
			if matchLength > optNum || pos+matchLength == iLimit {
				break // (equal to the end: cannot be sorted)
			}
		}
		var more bool
		if matchIndex, more = ms.descend(&c, pos, m, matchLength, next, matchIndex, btLow); !more {
			break
		}
	}
	ms.closeBt(&c)
	// A repetition's positions are skipped: they would all sort alike.
	ms.nextToUpdate = matchEndIdx - 8
	return mnum
}
