package packager

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// coffSection and coffObject build COFF objects from the specification's
// layout.
type coffSection struct {
	name string
	data []byte
}

func coffObject(machine uint16, opt int, big bool, secs []coffSection) []byte {
	var hs []hostile.COFFSection
	for _, s := range secs {
		hs = append(hs, hostile.COFFSection{Name: s.name, Data: s.data})
	}
	b, _ := hostile.COFFObject(machine, opt, big, hs)
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
	// Sections are searched in order, a name resolved when reached: a bad
	// package comes before a later section's bad name, as in LLVM 22.
	badThenName := coffObject(0x8664, 0, false, []coffSection{{".llvm.offloading", two[:60]}, {".text", []byte{0xc3}}})
	copy(badThenName[coffobj.HeaderSize+coffobj.SectionSize:], "/4x\x00")
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
		{"bad binary before a bad name", badThenName, offloadbin.ErrFormat, ""},
	} {
		_, err := scanBytes(tc.in, "x.obj")
		var worded interface{ LLVMMessage() string }
		switch {
		case !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		case tc.llvm != "" && (!errors.As(err, &worded) || worded.LLVMMessage() != tc.llvm):
			t.Errorf("%s: %v does not carry LLVM's message %q", tc.name, err, tc.llvm)
		case tc.llvm == "" && errors.As(err, &worded):
			t.Errorf("%s: %v carries the message %q, want LLVM's generic one", tc.name, err, worded.LLVMMessage())
		}
	}
}
