package packager

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// coffSection is a section of a hand-built COFF object: name is written
// as given when it fits the 8-byte field (raw names such as "/4" or
// "//AAAAAE" included), else as "/offset" into the string table.
type coffSection struct {
	name string
	data []byte
}

// coffObject lays out a COFF object: header (bigobj when big), opt bytes
// of optional header, the section table, the sections' data, and a string
// table found through a symbol table of zero symbols.
func coffObject(machine uint16, opt int, big bool, secs []coffSection) []byte {
	le := binary.LittleEndian
	hdr := coffobj.HeaderSize
	if big {
		hdr, opt = coffobj.BigObjHeaderSize, 0
	}
	strtab := []byte{0, 0, 0, 0}
	names := make([][]byte, len(secs))
	for i, s := range secs {
		names[i] = []byte(s.name)
		if len(s.name) > 8 {
			names[i] = []byte(fmt.Sprintf("/%d", len(strtab)))
			strtab = append(append(strtab, s.name...), 0)
		}
	}
	le.PutUint32(strtab, uint32(len(strtab)))
	pos := hdr + opt + len(secs)*coffobj.SectionSize
	b := make([]byte, pos)
	for i, s := range secs {
		e := b[hdr+opt+i*coffobj.SectionSize:]
		copy(e[:8], names[i])
		le.PutUint32(e[16:], uint32(len(s.data)))
		le.PutUint32(e[20:], uint32(len(b)))
		b = append(b, s.data...)
	}
	symPtr := uint32(len(b))
	b = append(b, strtab...)
	if big {
		le.PutUint16(b[2:], 0xffff)
		le.PutUint16(b[4:], 2)
		le.PutUint16(b[6:], machine)
		copy(b[12:], coffobj.BigObjClassID)
		le.PutUint32(b[44:], uint32(len(secs)))
		le.PutUint32(b[48:], symPtr)
	} else {
		le.PutUint16(b[0:], machine)
		le.PutUint16(b[2:], uint16(len(secs)))
		le.PutUint32(b[8:], symPtr)
		le.PutUint16(b[16:], uint16(opt))
	}
	return b
}

func TestScanCOFF(t *testing.T) {
	two := append(packed(t, "one", "arch", "a"), packed(t, "two!", "arch", "b")...)
	text := coffSection{".text", []byte{0xc3}}
	for _, tc := range []struct {
		name  string
		in    []byte
		found int
	}{
		{"amd64", coffObject(0x8664, 0, false, []coffSection{text, {".llvm.offloading", two}}), 2},
		{"i386, suffixed name", coffObject(0x14c, 0, false, []coffSection{{".llvm.offloading$a", two}}), 2},
		{"arm64, two sections", coffObject(0xaa64, 0, false, []coffSection{{".llvm.offloading", two}, {".llvm.offloadingX", two}}), 4},
		{"arm64ec", coffObject(0xa641, 0, false, []coffSection{{".llvm.offloading", two}}), 2},
		{"unknown machine", coffObject(0, 0, false, []coffSection{{".llvm.offloading", two}}), 2},
		{"optional header", coffObject(0x8664, 24, false, []coffSection{text, {".llvm.offloading", two}}), 2},
		{"base64 name", coffObject(0x8664, 0, false, []coffSection{{".llvm.offloading", nil}, {"//AAAAAE", two}}), 2},
		{"bigobj", coffObject(0x8664, 0, true, []coffSection{text, {".llvm.offloading", two}}), 2},
		{"other names", coffObject(0x8664, 0, false, []coffSection{{".llvm.offload", two}, {".llvm.of", two}}), 0},
		{"import library", append([]byte{0x64, 0x86, 0xff, 0xff}, make([]byte, 60)...), 0},
		{"empty object", make([]byte, 20), 0},
	} {
		found, err := scanBytes(tc.in, "x.obj")
		if err != nil || len(found) != tc.found {
			t.Errorf("%s: %d images, %v; want %d", tc.name, len(found), err, tc.found)
			continue
		}
		for i, f := range found {
			if got, want := data(t, f), []string{"one", "two!"}[i%2]; got != want || f.Source != "x.obj" {
				t.Errorf("%s: image %d is %q from %q", tc.name, i, got, f.Source)
			}
		}
	}
}

func TestScanCOFFErrors(t *testing.T) {
	two := append(packed(t, "one"), packed(t, "two")...)
	good := coffObject(0x8664, 0, false, []coffSection{{".llvm.offloading", two}})
	patch := func(b []byte, off int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	noStrtab := patch(good, 8, 0)
	badName := bytes.Clone(good)
	copy(badName[coffobj.HeaderSize:], "/4x")
	farName := bytes.Clone(good)
	copy(farName[coffobj.HeaderSize:], "/999")
	for _, tc := range []struct {
		name string
		in   []byte
		want error
		llvm string // LLVM's own wording, if it has one
	}{
		{"header", []byte{0x64, 0x86, 1, 0}, offloadbin.ErrTruncated, ""},
		{"section table", good[:coffobj.HeaderSize+10], offloadbin.ErrTruncated, ""},
		{"section data", patch(good, coffobj.HeaderSize+16, 1<<20), offloadbin.ErrTruncated, ""},
		{"name past string table", farName, offloadbin.ErrTruncated, ""},
		{"no string table", noStrtab, offloadbin.ErrFormat, "string table empty"},
		{"unterminated string table", good[:len(good)-1], offloadbin.ErrFormat, "string table empty"},
		{"bad name", badName, offloadbin.ErrFormat, "invalid section name"},
		{"bad binary", coffObject(0x8664, 0, false, []coffSection{{".llvm.offloading", two[:60]}}), offloadbin.ErrFormat, ""},
	} {
		_, err := scanBytes(tc.in, "x.obj")
		var worded interface{ LLVMMessage() string }
		switch {
		case !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		case tc.llvm != "" && (!errors.As(err, &worded) || worded.LLVMMessage() != tc.llvm):
			t.Errorf("%s: %v does not carry LLVM's message %q", tc.name, err, tc.llvm)
		}
	}
}
