package inspect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// cubinLike is the smallest file the fat binary writer takes as a cubin
// for sm_70: an ELF64 header (EM_CUDA, the arch in e_flags) and a body
// that compresses well.
func cubinLike() []byte {
	b := make([]byte, 64, 4096)
	copy(b, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(b[16:], 2)   // ET_EXEC
	binary.LittleEndian.PutUint16(b[18:], 190) // EM_CUDA
	binary.LittleEndian.PutUint32(b[20:], 1)
	b[48] = 70
	binary.LittleEndian.PutUint16(b[52:], 64) // e_ehsize
	return append(b, bytes.Repeat([]byte("cuda"), 1000)...)
}

func compressedFatbin(t *testing.T) []byte {
	t.Helper()
	fb, err := nvfatbin.Write([]nvfatbin.Image{{Kind: nvfatbin.KindELF, Arch: 70, Data: cubinLike(), Name: "k.cubin"}},
		nvfatbin.WriteOptions{CompressAll: true})
	if err != nil {
		t.Fatal(err)
	}
	return fb
}

// A compressed entry is inflated and described, not just reported.
func TestNVFatbinCompressedEntryInflated(t *testing.T) {
	fb := compressedFatbin(t)
	n := inspectBytes(fb, Options{})
	e := n.Children[0]
	if !strings.Contains(e.Detail, "compressed by NVIDIA") || len(e.Children) != 1 {
		t.Fatalf("entry: %+v", e)
	}
	if c := e.Children[0]; c.Format != "elf" || c.Space != "decompressed#1" || !strings.Contains(c.Detail, "CUDA") {
		t.Errorf("inflated entry: %+v", c)
	}
}

// The declared size is taken from the budget before anything is decoded,
// and a corrupt LZ4 stream is an error on the entry, not a panic.
func TestNVFatbinCompressedEntryHostile(t *testing.T) {
	fb := compressedFatbin(t)
	n := inspectBytes(fb, Options{MaxUncompressedSize: 100})
	// The refusal names the entry; a decoding error gives its own offset,
	// after the fat binary's.
	if e := n.Children[0]; !strings.HasPrefix(e.Error, fmt.Sprintf("at offset %d (file): ", e.Offset)) ||
		!strings.Contains(e.Error, "--max-uncompressed-size") || len(e.Children) != 0 {
		t.Errorf("over budget: %+v", e)
	}
	bad := append([]byte(nil), fb...)
	for i := len(bad) - 40; i < len(bad)-8; i++ {
		bad[i] = 0xff
	}
	n = inspectBytes(bad, Options{})
	if e := n.Children[0]; !strings.HasPrefix(e.Error, "at offset 0 (file): ") {
		t.Errorf("corrupt LZ4: %+v", e)
	}
}

// A damaged fat binary's node says where the fat binary starts, and its
// error where in it the damage is, as the fat binary reader words it
// (nvfatbin.FormatError has an ErrorOffset, which fail would prefer).
func TestNVFatbinErrorWording(t *testing.T) {
	fb, err := nvfatbin.Write([]nvfatbin.Image{
		{Kind: nvfatbin.KindPTX, Arch: 70, Data: []byte(".version 7.0\n")},
		{Kind: nvfatbin.KindPTX, Arch: 80, Data: []byte(".version 7.0\n")},
	}, nvfatbin.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, size, err := nvfatbin.Read(bytes.NewReader(fb), 0, int64(len(fb)))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(fb[8:], uint64(size)) // claims more entries than it holds
	n := inspectBytes(fb, Options{})
	want := fmt.Sprintf("in cuda-fatbin at offset 0: nvfatbin: entries of %d bytes run past the end of the input at offset 0x8", size)
	if n.Error != want {
		t.Errorf("error %q, want %q", n.Error, want)
	}
}
