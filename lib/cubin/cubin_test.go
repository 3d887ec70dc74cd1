package cubin

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testdata/cuda13 holds the cubins ptxas 13.0 wrote for sm_75 to sm_120,
// sm_90a and sm_100a among them, and cuobjdump's view of each
// (cubin-elf.txt, `cuobjdump -elf`): docs/provenance.md.

// TestCUDA13Cubins reads every cubin and checks the target and e_flags
// against what cuobjdump prints for it ("sm=90a, ... flags=0x6005a04").
func TestCUDA13Cubins(t *testing.T) {
	f, err := os.Open("testdata/cuda13/cubin-elf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	var name string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "== "); ok {
			name = rest
			continue
		}
		if !strings.Contains(line, "ELF: type=") {
			continue
		}
		fields := map[string]string{}
		for _, kv := range strings.Split(line[strings.Index(line, "type="):], ", ") {
			k, v, _ := strings.Cut(kv, "=")
			fields[k] = v
		}
		flags, _ := strconv.ParseUint(fields["flags"], 0, 32)
		abi, _ := strconv.Atoi(fields["ABI"])
		b, err := os.ReadFile(filepath.Join("testdata/cuda13", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.String() != "sm_"+fields["sm"] || got.Flags != uint32(flags) || got.ABIVersion != abi {
			t.Errorf("%s: %s, e_flags %#x, ABI %d; cuobjdump: sm_%s, %#x, ABI %d", name, got, got.Flags, got.ABIVersion, fields["sm"], flags, abi)
		}
		// The header alone gives the SM; the "a" needs .nv.compat.
		h, err := FromHeader(b)
		if err != nil || h.SM != got.SM {
			t.Errorf("%s: FromHeader: %v, %v", name, h, err)
		}
		n++
	}
	if n != 22 {
		t.Errorf("%d cubins listed, want 22", n)
	}
}

// elf64 is an ELF64 header of the given EI_ABIVERSION and e_flags.
func elf64(abi byte, flags uint32) []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01\x41")
	h[8] = abi
	binary.LittleEndian.PutUint16(h[18:], 190)
	binary.LittleEndian.PutUint32(h[48:], flags)
	return h
}

func TestFromHeader(t *testing.T) {
	for _, c := range []struct {
		h    []byte
		want string
	}{
		{elf64(7, 0x500550), "sm_80"},    // CUDA 11.8's ptxas
		{elf64(7, 0x5a0d5a), "sm_90a"},   // ABI 7, EF_CUDA_ACCELERATORS_V1
		{elf64(8, 0x6005a04), "sm_90"},   // CUDA 13's ptxas
		{elf64(8, 0x600640a), "sm_100a"}, // ABI 8, EF_CUDA_ACCELERATORS
		{elf64(8, 0x6007802), "sm_120"},  //
		{elf64(0, 70), "sm_70"},          // what hand-made test cubins carry
		{elf64(8, 0x6000004), "error"},   // no SM in bits 8-15
		{elf64(7, 0x500500), "error"},    // none in bits 0-7
		{elf64(9, 0x6005a04), "error"},   // an ABI version not known
		{elf64(8, 0x6005a04)[:60], "error"},
		{[]byte("\x7fELF\x03"), "error"},
	} {
		got, err := FromHeader(c.h)
		s := got.String()
		if err != nil {
			s = "error"
			if !errors.Is(err, ErrFormat) {
				t.Errorf("%x: %v is not ErrFormat", c.h, err)
			}
		}
		if s != c.want {
			t.Errorf("e_flags %#x ABI %d: %s (%v), want %s", binary.LittleEndian.Uint32(append(c.h, make([]byte, 64)...)[48:]), c.h[min(8, len(c.h)-1)], s, err, c.want)
		}
	}
}

// Hostile .nv.compat sections: each is an error, not a panic or a read
// past the section.
func TestCompatAttribute(t *testing.T) {
	for _, c := range []struct {
		b    string
		want int
		err  bool
	}{
		{"\x02\x09\x01\x00", 1, false},
		{"\x04\x0b\x08\x00" + "\x09\x00\x00\x00\x00\x00\x00\x00" + "\x02\x09\x00\x00", 0, false},
		{"\x02\x05\x05\x00\x00\x00\x00\x00", -1, false},
		{"\x04\x0b\xff\xff\x00", 0, true},
		{"\x07\x09\x01\x00", 0, true},
		{"\x02\x09", 0, true},
	} {
		got, err := compatAttribute([]byte(c.b), compatAccelerated)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("%x: %d, %v; want %d, error %v", c.b, got, err, c.want, c.err)
		}
	}
}
