package hostile

import (
	"bytes"
	"fmt"
)

// COFFSection is a section of COFFObject. Name is written as given when it
// fits the 8-byte field (raw names such as "/4" or "//AAAAAE" included),
// else as "/offset" into the string table. A nil Data has no contents in
// the file (its pointer to them is 0).
type COFFSection struct {
	Name string
	Data []byte
}

// COFFObject lays out a COFF object from the PE/COFF specification's
// structures: the file header (a bigobj header when big), opt bytes of
// optional header, the section table (each section readable data,
// characteristics 0x42000040), the sections' contents, and a string table
// found through a symbol table of no symbols. It also returns the file
// offset of each section's contents (0 for a nil Data).
func COFFObject(machine uint16, opt int, big bool, secs []COFFSection) ([]byte, []int64) {
	const sectionSize = 40
	hdr := 20
	if big {
		hdr, opt = 56, 0
	}
	strtab := []byte{0, 0, 0, 0}
	names := make([][]byte, len(secs))
	for i, s := range secs {
		names[i] = []byte(s.Name)
		if len(s.Name) > 8 {
			names[i] = []byte(fmt.Sprintf("/%d", len(strtab)))
			strtab = append(append(strtab, s.Name...), 0)
		}
	}
	le.PutUint32(strtab, uint32(len(strtab)))
	b := make([]byte, hdr+opt+len(secs)*sectionSize)
	offs := make([]int64, len(secs))
	for i, s := range secs {
		e := b[hdr+opt+i*sectionSize:]
		copy(e[:8], names[i])
		le.PutUint32(e[16:], uint32(len(s.Data)))
		le.PutUint32(e[36:], 0x42000040)
		if s.Data != nil {
			offs[i] = int64(len(b))
			le.PutUint32(e[20:], uint32(len(b)))
			b = append(b, s.Data...)
		}
	}
	symPtr := uint32(len(b))
	b = append(b, strtab...)
	if big {
		le.PutUint16(b[2:], 0xffff)
		le.PutUint16(b[4:], 2)
		le.PutUint16(b[6:], machine)
		copy(b[12:], bigObjClassID)
		le.PutUint32(b[44:], uint32(len(secs)))
		le.PutUint32(b[48:], symPtr)
	} else {
		le.PutUint16(b[0:], machine)
		le.PutUint16(b[2:], uint16(len(secs)))
		le.PutUint32(b[8:], symPtr)
		le.PutUint16(b[16:], uint16(opt))
	}
	return b, offs
}

// bigObjClassID is the class ID (UUID field) of a bigobj header.
var bigObjClassID = []byte{0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8}

// COFFLongNames returns a COFF object (x86-64) of n sections, none with
// contents, whose names all run to the end of one string table of
// nameLen non-NUL bytes: section i's name is at offset 4+(i*stride mod
// nameLen) of the table (written "//" and six base64 digits, which fit the
// 8-byte field whatever the offset), so that each name is a long tail of
// the table, a different one for a stride that is not 0. Readers that copy
// names copy up to the whole table n times.
func COFFLongNames(n, nameLen, stride int) []byte {
	secs := []COFFSection{{Name: string(bytes.Repeat([]byte{'A'}, nameLen))}}
	for i := 1; i < n; i++ {
		secs = append(secs, COFFSection{Name: base64Offset(4 + (i*stride)%nameLen)})
	}
	b, _ := COFFObject(0x8664, 0, false, secs)
	return b
}

// base64Offset writes a string table offset as a long section name of the
// "//" form: six base64 digits, most significant first.
func base64Offset(off int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := []byte("//")
	for shift := 30; shift >= 0; shift -= 6 {
		b = append(b, digits[off>>shift&63])
	}
	return string(b)
}
