package strtab

import "strings"

// Table is a string table read whole (a COFF string table, an ar archive's
// long-name table) that hands out its strings as slices of itself, never
// copies: a hostile file can point any number of names at one long string
// (65,534 COFF sections named "/4" into a 16 MiB table would be 768 GiB of
// copies, 4,000 archive members named "/0" into a 280 KB table 1.1 GB).
//
// Finding where a string ends is bounded too: the table remembers, for
// each block of blockSize bytes, where the first terminator at or after
// the block's start is, so a lookup scans at most one block whatever the
// string's length.
type Table struct {
	s       string
	stops   string // the bytes that end a string
	endFrom []int  // per block: offset of the first stop at or after its start
}

const blockSize = 4096

// NewTable takes the table b, whose strings end at any byte of stops (a NUL
// in most formats), and which nothing changes afterwards.
func NewTable(b []byte, stops string) *Table {
	t := &Table{s: string(b), stops: stops}
	blocks := (len(b) + blockSize - 1) / blockSize
	t.endFrom = make([]int, blocks)
	next := len(b) // no stop at or after: the string runs to the end
	for i := blocks - 1; i >= 0; i-- {
		start := i * blockSize
		if j := t.index(t.s[start:min(start+blockSize, len(b))]); j >= 0 {
			next = start + j
		}
		t.endFrom[i] = next
	}
	return t
}

func (t *Table) index(s string) int {
	if len(t.stops) == 1 {
		return strings.IndexByte(s, t.stops[0])
	}
	return strings.IndexAny(s, t.stops)
}

// Len is the table's size in bytes.
func (t *Table) Len() int { return len(t.s) }

// At returns the string at offset off (0 <= off < Len()), up to the first
// stop byte, and whether a stop ended it (false: it runs to the end of the
// table).
func (t *Table) At(off int) (string, bool) {
	end := min((off/blockSize+1)*blockSize, len(t.s))
	if j := t.index(t.s[off:end]); j >= 0 {
		return t.s[off : off+j], true
	}
	if end == len(t.s) {
		return t.s[off:], false
	}
	e := t.endFrom[end/blockSize]
	return t.s[off:e], e < len(t.s)
}
