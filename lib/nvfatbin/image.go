package nvfatbin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// MaxRatio bounds the declared uncompressed size of an entry: LZ4 cannot
// inflate a byte to much more than 255, so a larger declaration is false
// and is refused (by Read) before anything is allocated.
const MaxRatio = 255

// Image returns the image e holds, as `cuobjdump -xelf`/`-xptx` writes
// it: decompressed when compressed, a cubin without the padding after its
// ELF data, PTX without its NUL. Compressed entries are inflated in
// memory; callers that bound decompression check e.UncompressedSize first,
// or use Inflate.
func (e *Entry) Image(r io.ReaderAt) ([]byte, error) {
	if !e.Compressed {
		stored := make([]byte, e.Size)
		if _, err := r.ReadAt(stored, e.Offset); err != nil {
			return nil, err
		}
		return stored[:e.imageSize(bytes.NewReader(stored), e.Size)], nil
	}
	var b bytes.Buffer
	if err := e.Inflate(r, &b); err != nil {
		return nil, err
	}
	return b.Bytes()[:e.imageSize(bytes.NewReader(b.Bytes()), int64(b.Len()))], nil
}

// Inflate writes the e.UncompressedSize bytes a compressed entry of r
// inflates to into w, holding little more than the compressed bytes in
// memory (and, for ZSTD, the frame's window, at most the declared size);
// the image is the first ImageSize bytes of them.
func (e *Entry) Inflate(r io.ReaderAt, w io.Writer) error {
	if !e.Compressed {
		return fmt.Errorf("nvfatbin: the entry at offset %#x is not compressed", e.Offset)
	}
	ratio := int64(MaxRatio)
	if e.Compression == Zstd {
		ratio = MaxRatioZstd
	}
	if e.UncompressedSize < 0 || e.UncompressedSize > ratio*e.Size+16 { // Read refuses these; an Entry made by hand may not
		return &FormatError{e.Offset, fmt.Sprintf("%d compressed bytes cannot inflate to the %d declared", e.Size, e.UncompressedSize)}
	}
	stored := make([]byte, e.Size)
	if _, err := r.ReadAt(stored, e.Offset); err != nil {
		return err
	}
	var err error
	if e.Compression == Zstd {
		err = DecompressZstdTo(w, stored, e.UncompressedSize)
	} else {
		err = DecompressTo(w, stored, e.UncompressedSize)
	}
	switch de := err.(type) { // say where in r, with one prefix
	case *DecompressError:
		return &FormatError{e.Offset + int64(de.Off), "LZ4 block: " + de.Msg}
	case *ZstdError:
		return &FormatError{e.Offset + int64(de.Off), "ZSTD frame: " + de.Msg}
	}
	return err
}

// ImageSize is the size of the image at the start of r, which holds the
// size bytes of e's payload (inflated if compressed): see Image. It reads
// the ELF headers or looks for the NUL, never the whole payload at once.
func (e *Entry) ImageSize(r io.ReaderAt, size int64) int64 {
	return e.imageSize(r, size)
}

func (e *Entry) imageSize(r io.ReaderAt, size int64) int64 {
	if e.Kind == KindPTX {
		return textSize(r, size)
	}
	if n := elfSize(r, size); n > 0 {
		return n
	}
	return size
}

// textSize is the length of the C string at the start of r.
func textSize(r io.ReaderAt, size int64) int64 {
	var buf [4096]byte
	for off := int64(0); off < size; off += int64(len(buf)) {
		n, _ := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			return off + int64(i)
		}
		if n == 0 {
			break
		}
	}
	return size
}

// elfSize is where the last of an ELF file's parts ends: its header, the
// section and program header tables, and the sections and segments with
// bytes in the file. It is 0 when r does not start with an ELF header
// whose parts lie within size.
func elfSize(r io.ReaderAt, size int64) int64 {
	var h [64]byte
	if n, _ := r.ReadAt(h[:], 0); n < 52 || string(h[:4]) != "\x7fELF" {
		return 0
	}
	le := binary.LittleEndian
	var shoff, phoff uint64
	var shentsize, shnum, phentsize, phnum uint16
	ehsize := uint64(52)
	switch h[4] {
	case 1:
		phoff, shoff = uint64(le.Uint32(h[28:])), uint64(le.Uint32(h[32:]))
		phentsize, phnum, shentsize, shnum = le.Uint16(h[42:]), le.Uint16(h[44:]), le.Uint16(h[46:]), le.Uint16(h[48:])
	case 2:
		ehsize = 64
		phoff, shoff = le.Uint64(h[32:]), le.Uint64(h[40:])
		phentsize, phnum, shentsize, shnum = le.Uint16(h[54:]), le.Uint16(h[56:]), le.Uint16(h[58:]), le.Uint16(h[60:])
	default:
		return 0
	}
	end := ehsize
	ok := true
	extend := func(off, n uint64) {
		if off > uint64(size) || n > uint64(size)-off {
			ok = false
			return
		}
		end = max(end, off+n)
	}
	extend(shoff, uint64(shnum)*uint64(shentsize))
	extend(phoff, uint64(phnum)*uint64(phentsize))
	if !ok {
		return 0
	}
	is64 := h[4] == 2
	shMin, phMin := uint16(40), uint16(32)
	if is64 {
		shMin, phMin = 64, 56
	}
	for i := uint64(0); i < uint64(shnum) && shentsize >= shMin; i++ {
		var s [64]byte
		r.ReadAt(s[:shMin], int64(shoff+i*uint64(shentsize)))
		if typ := le.Uint32(s[4:]); typ == 8 || typ == 0 { // SHT_NOBITS, SHT_NULL
			continue
		}
		if is64 {
			extend(le.Uint64(s[24:]), le.Uint64(s[32:]))
		} else {
			extend(uint64(le.Uint32(s[16:])), uint64(le.Uint32(s[20:])))
		}
	}
	for i := uint64(0); i < uint64(phnum) && phentsize >= phMin; i++ {
		var p [56]byte
		r.ReadAt(p[:phMin], int64(phoff+i*uint64(phentsize)))
		if is64 {
			extend(le.Uint64(p[8:]), le.Uint64(p[32:]))
		} else {
			extend(uint64(le.Uint32(p[4:])), uint64(le.Uint32(p[16:])))
		}
	}
	if !ok {
		return 0
	}
	return int64(end)
}
