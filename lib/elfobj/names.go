package elfobj

import (
	"bytes"
	"math"
	"slices"
	"strings"
)

// maxName caps the length of one section or symbol name.
const maxName = 1 << 20

// nameWindow is the first read of the string table at a name that no
// earlier read covered; it grows (up to maxName) for longer names.
const nameWindow = 64 << 10

// stringsAt returns the NUL-terminated strings at offsets offs of string
// table tab, in the order of offs; an empty table has only empty names.
//
// A hostile object can point any number of names (section headers or
// symbols) at one long string, or at tails of it: 200,000 section names
// into one 1 MiB string cost 200 GB as copies. So each string is a slice
// of a piece of the table read once: the offsets are taken in ascending
// order, a piece is read where one starts that no earlier piece holds, and
// a name ends at the NUL that ended the previous one when it starts
// before it. Memory stays within about twice the bytes of the table that
// the names cover, and each byte is scanned about once, in any order of
// offsets.
func (f *File) stringsAt(tab Section, offs []uint32) ([]string, error) {
	if uint64(len(offs)) > math.MaxUint32 {
		return nil, &FormatError{int64(tab.Offset), "too many names in string table", nil}
	}
	// Each offset with its index below it, so that sorting needs no
	// comparison function.
	order := make([]uint64, len(offs))
	for i, o := range offs {
		order[i] = uint64(o)<<32 | uint64(i)
	}
	slices.Sort(order)
	out := make([]string, len(offs))
	var piece string // the table's bytes from offset from
	var from uint64
	nul := uint64(0) // offset of the NUL that ended the last name, once one did
	seen := false
	for _, k := range order {
		o, i := k>>32, uint32(k)
		switch {
		case o >= tab.Size:
			if o == 0 {
				continue // an empty table: every name is empty
			}
			return nil, &FormatError{int64(tab.Offset), "string offset past end of table:", o}
		case seen && o <= nul:
			// Within the last name: it ends where that one did.
		default:
			j := -1
			if o < from+uint64(len(piece)) {
				j = strings.IndexByte(piece[o-from:], 0)
			}
			if j < 0 {
				var err error
				if piece, j, err = f.readName(tab, o); err != nil {
					return nil, err
				}
				from = o
			}
			nul, seen = o+uint64(j), true
		}
		out[i] = piece[o-from : nul-from]
	}
	return out, nil
}

// readName reads table tab from offset o (< tab.Size) until it holds a
// NUL, and returns what it read and where that NUL is in it. A name must
// end within the table and within maxName bytes.
func (f *File) readName(tab Section, o uint64) (string, int, error) {
	want := uint64(nameWindow)
	for {
		n := min(want, tab.Size-o, maxName)
		b, err := f.bytesAt(tab.Offset+o, n)
		if err != nil {
			return "", 0, err
		}
		if j := bytes.IndexByte(b, 0); j >= 0 {
			return string(b), j, nil
		}
		if n == tab.Size-o || n == maxName {
			return "", 0, &FormatError{int64(tab.Offset + o), "unterminated or overlong string", nil}
		}
		want *= 4
	}
}
