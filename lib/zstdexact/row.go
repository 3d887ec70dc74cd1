package zstdexact

// libzstd's row-based match finder (ZSTD_RowFindBestMatch), which it uses
// for the greedy and lazy strategies when the window exceeds 16 KiB. The
// hash table is cut into rows of 16 to 64 entries; beside each entry an
// 8-bit tag (more bits of the hash) lets a search skip entries that
// cannot match, and the first tag byte of a row holds the position of its
// newest entry. A small cache holds the hashes of the next 8 positions.
//
// libzstd XORs a salt into these hashes. XOR with a constant renames
// rows and tags without changing which positions share them, so the salt
// does not show in the output, and none is used here. What would show is
// a reused compression context: libzstd keeps its stale tags (the salt
// changes to make them unlikely to match). This package writes what a
// fresh context writes, as ZSTD_compress makes one per call.

const (
	rowHashCacheSize = 8
	rowTagBits       = 8
	rowSkipThreshold = 384 // a longer gap in insertions is only partly filled
	rowSkipStart     = 96  // positions inserted at the start of such a gap
	rowSkipEnd       = 32  // and at its end
)

type rowState struct {
	rowLog  uint
	hashLog uint // of the row number
	tags    []byte
	cache   [rowHashCacheSize]uint32
}

func newRowState(p params) *rowState {
	rowLog := min(max(p.searchLog, 4), 6)
	return &rowState{rowLog: rowLog, hashLog: p.hashLog - rowLog, tags: make([]byte, 1<<p.hashLog)}
}

// rowHash is the hash of position pos: row number above the tag bits.
func (ms *matchState) rowHash(pos int, mls uint) uint32 {
	return hashPos(ms.src, pos, ms.row.hashLog+rowTagBits, mls)
}

// rowFillHashCache computes the hashes of up to 8 positions from index
// idx, not past position ilimit.
func (ms *matchState) rowFillHashCache(mls uint, idx uint32, ilimit int) {
	pos := int(idx) - startIndex
	n := 0
	if pos <= ilimit {
		n = ilimit - pos + 1
	}
	lim := idx + uint32(min(rowHashCacheSize, n))
	for ; idx < lim; idx++ {
		ms.row.cache[idx&(rowHashCacheSize-1)] = ms.rowHash(int(idx)-startIndex, mls)
	}
}

// rowNextCachedHash returns the cached hash of idx and caches that of
// idx+8 in its place.
func (ms *matchState) rowNextCachedHash(idx uint32, mls uint) uint32 {
	h := ms.rowHash(int(idx)-startIndex+rowHashCacheSize, mls)
	slot := &ms.row.cache[idx&(rowHashCacheSize-1)]
	old := *slot
	*slot = h
	return old
}

// rowNextIndex moves a row's head to its next slot (downwards, skipping
// slot 0, which holds the head) and returns it.
func rowNextIndex(tagRow []byte, rowMask uint32) uint32 {
	next := (uint32(tagRow[0]) - 1) & rowMask
	if next == 0 {
		next = rowMask
	}
	tagRow[0] = byte(next)
	return next
}

func (ms *matchState) rowInsert(hash, idx uint32) {
	r := ms.row
	rowMask := uint32(1)<<r.rowLog - 1
	rel := (hash >> rowTagBits) << r.rowLog
	tagRow := r.tags[rel : rel+rowMask+1]
	pos := rowNextIndex(tagRow, rowMask)
	tagRow[pos] = byte(hash)
	ms.hashTable[rel+pos] = idx
}

func (ms *matchState) rowUpdateRange(from, to uint32, mls uint) {
	for ; from < to; from++ {
		ms.rowInsert(ms.rowNextCachedHash(from, mls), from)
	}
}

// rowUpdate inserts the positions from nextToUpdate up to pos; of a long
// gap (a long match), only its first 96 and last 32 positions.
func (ms *matchState) rowUpdate(pos int, mls uint) {
	idx := ms.nextToUpdate
	target := uint32(pos + startIndex)
	if target-idx > rowSkipThreshold {
		ms.rowUpdateRange(idx, idx+rowSkipStart, mls)
		idx = target - rowSkipEnd
		ms.rowFillHashCache(mls, idx, pos+1)
	}
	ms.rowUpdateRange(idx, target, mls)
	ms.nextToUpdate = target
}

// rowFindBest searches pos's row for the longest match of 4 or more
// bytes ending before limit; it returns 3 when there is none.
func (ms *matchState) rowFindBest(pos, limit int, mls uint) (int, uint32) {
	r := ms.row
	src := ms.src
	curr := uint32(pos + startIndex)
	maxDistance := uint32(1) << ms.p.windowLog
	lowLimit := ms.lowLimit
	if curr-lowLimit > maxDistance {
		lowLimit = curr - maxDistance
	}
	rowEntries := uint32(1) << r.rowLog
	rowMask := rowEntries - 1
	attempts := 1 << min(ms.p.searchLog, r.rowLog)

	var hash uint32
	if !ms.lazySkipping {
		ms.rowUpdate(pos, mls)
		hash = ms.rowNextCachedHash(curr, mls)
	} else {
		hash = ms.rowHash(pos, mls)
		ms.nextToUpdate = curr
	}
	rel := (hash >> rowTagBits) << r.rowLog
	tag := byte(hash)
	tagRow := r.tags[rel : rel+rowEntries]
	head := uint32(tagRow[0]) & rowMask

	// The candidates: entries with pos's tag, newest first.
	var buf [64]uint32
	n := 0
	for k := uint32(0); k < rowEntries && attempts > 0; k++ {
		matchPos := (head + k) & rowMask
		if tagRow[matchPos] != tag {
			continue
		}
		if matchPos == 0 {
			continue // the head byte, not a tag
		}
		matchIndex := ms.hashTable[rel+matchPos]
		if matchIndex < lowLimit {
			break
		}
		buf[n] = matchIndex
		n++
		attempts--
	}

	// pos itself goes in now, saving the next update a step
	slot := rowNextIndex(tagRow, rowMask)
	tagRow[slot] = tag
	ms.hashTable[rel+slot] = ms.nextToUpdate
	ms.nextToUpdate++

	ml := 3
	offBase := uint32(999999999)
	for _, matchIndex := range buf[:n] {
		m := int(matchIndex - startIndex)
		cur := 0
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
	}
	return ml, offBase
}
