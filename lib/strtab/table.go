package coffobj

import "strings"

// stringTable is a COFF string table, size field included, that hands out
// its strings as slices of itself, never copies: a hostile object can name
// all its sections "/4" into a 16 MiB table, and each name is then almost
// all of the table (65,534 copies of it would be 768 GiB).
//
// Finding where a string ends is bounded too: the table remembers, for
// each block of blockSize bytes, where the first NUL at or after the
// block's start is, so a lookup scans at most one block whatever the
// string's length.
type stringTable struct {
	s       string
	nulFrom []int32 // per block: offset of the first NUL at or after its start
}

const blockSize = 4096

// newStringTable takes b, which ends in a NUL or is only the size field,
// and which nothing else changes afterwards.
func newStringTable(b []byte) *stringTable {
	t := &stringTable{s: string(b)}
	blocks := (len(b) + blockSize - 1) / blockSize
	t.nulFrom = make([]int32, blocks)
	next := int32(len(b)) // no NUL at or after: only in a table of no strings
	for i := blocks - 1; i >= 0; i-- {
		start := i * blockSize
		if j := strings.IndexByte(t.s[start:min(start+blockSize, len(b))], 0); j >= 0 {
			next = int32(start + j)
		}
		t.nulFrom[i] = next
	}
	return t
}

func (t *stringTable) len() int { return len(t.s) }

// at returns the NUL-terminated string at offset off (< t.len()).
func (t *stringTable) at(off int) string {
	end := min((off/blockSize+1)*blockSize, len(t.s))
	if j := strings.IndexByte(t.s[off:end], 0); j >= 0 {
		return t.s[off : off+j]
	}
	if end == len(t.s) {
		return t.s[off:]
	}
	return t.s[off:t.nulFrom[end/blockSize]]
}
