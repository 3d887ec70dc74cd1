package inspect_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Hostile fat binaries of CUDA 13's kind (ZSTD entries, flag 0x8000) and
// cubins of ELF ABI version 8, under the caps of the other readers (256
// MiB, 2 s): each is refused with a clear error, or read within them, and
// nothing is written. Before lib/nvfatbin read ZSTD, every such entry was
// taken for LZ4 and failed on its first match.
func TestFatbinZstdHostile(t *testing.T) {
	dir := t.TempDir()
	ptx := []byte(".version 9.0\x00")
	write := func(name string, e hostile.NVEntry) {
		if e.Kind == 0 {
			e.Kind, e.Arch, e.Header = 1, 90, 72
		}
		e.Zstd = true
		os.WriteFile(filepath.Join(dir, name), hostile.NVFatbin([]hostile.NVEntry{e}), 0o644)
	}
	// A 32 KiB frame of RLE blocks that inflates to 1 GiB, in an entry
	// declaring the 13 bytes of its first block.
	write("bomb.fatbin", hostile.NVEntry{Payload: hostile.ZstdFrame(ptx, 1<<30), Inflated: len(ptx)})
	// The same frame declared whole: taken from the budget before decoding.
	write("declared.fatbin", hostile.NVEntry{Payload: hostile.ZstdFrame(nil, 1<<30), Inflated: 1 << 30})
	// A frame that asks for a 1 GiB window (Window_Descriptor 20<<3).
	window := hostile.ZstdFrame(ptx, 0)
	window[5] = 20 << 3
	write("window.fatbin", hostile.NVEntry{Payload: window, Inflated: len(ptx)})
	// Lying compressed sizes: shorter than the frame, and past the payload.
	write("short.fatbin", hostile.NVEntry{Payload: hostile.ZstdFrame(ptx, 0), Inflated: len(ptx), Stored: 9})
	write("long.fatbin", hostile.NVEntry{Payload: hostile.ZstdFrame(ptx, 0), Inflated: len(ptx), Stored: 1 << 20})
	// More declared than 32768 times the compressed bytes can hold.
	write("ratio.fatbin", hostile.NVEntry{Payload: hostile.ZstdFrame(ptx, 0), Inflated: 1 << 30})
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"offload", "inspect", "bomb.fatbin"}, "ZSTD frame: inflates to more than the 13 bytes declared"},
		{[]string{"offload", "extract", "bomb.fatbin"}, "ZSTD frame: inflates to more than the 13 bytes declared"},
		{[]string{"offload", "inspect", "--max-uncompressed-size=64M", "declared.fatbin"}, "would exceed"},
		{[]string{"offload", "inspect", "window.fatbin"}, "ZSTD frame: a window of 1073741824 bytes, over the 67108864 kept"},
		{[]string{"offload", "inspect", "short.fatbin"}, "ZSTD frame:"},
		{[]string{"offload", "inspect", "long.fatbin"}, "compressed size 1048576 larger than the payload"},
		{[]string{"offload", "inspect", "ratio.fatbin"}, "compressed bytes (ZSTD) cannot inflate to the 1073741824 declared"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code == 0 || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want an error saying %q", c.argv, r, c.want)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*-*")); len(names) != 0 {
		t.Errorf("extract wrote %v", names)
	}
}

// Cubins whose e_flags name no SM, or whose ELF ABI version is unknown:
// offload fatbin refuses them, naming the file and writing nothing.
func TestFatbinBadEFlags(t *testing.T) {
	dir := t.TempDir()
	for name, h := range map[string]struct {
		abi   byte
		flags uint32
	}{"nosm.cubin": {8, 0x6000004}, "abi9.cubin": {9, 0x6005a04}, "lowbyte.cubin": {8, 0x5a}} {
		b := cubinHeader(0)
		b[8] = h.abi
		binary.LittleEndian.PutUint32(b[48:], h.flags)
		os.WriteFile(filepath.Join(dir, name), append(b, make([]byte, 4096)...), 0o644)
	}
	for _, c := range []struct {
		file, want string
	}{
		{"nosm.cubin", "nosm.cubin: cubin: e_flags 0x6000004 of ABI version 8 name no SM"},
		{"abi9.cubin", "abi9.cubin: cubin: unknown CUDA ELF ABI version 9"},
		{"lowbyte.cubin", "lowbyte.cubin: cubin: e_flags 0x5a of ABI version 8 name no SM"},
	} {
		r := runCapped(t, dir, "offload", "fatbin", "-64", "--create=out.fatbin", "--image3=kind=elf,sm=90,file="+c.file)
		if r.Code != 1 || !strings.Contains(r.Output, c.want) {
			t.Errorf("%s: %v; want exit 1 saying %q", c.file, r, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.fatbin")); err == nil {
		t.Errorf("out.fatbin written")
	}
}
