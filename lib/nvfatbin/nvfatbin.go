// Package nvfatbin reads NVIDIA's fat binary container (magic 0xBA55ED50):
// what nvcc and fatbinary write, what clang embeds in a .nv_fatbin section
// and what the CUDA runtime registers. A container holds entries of PTX or
// of cubins (ELF), each for one sm_XX, stored as is or compressed.
//
// NVIDIA does not document the layout. It was read off the files CUDA
// 11.8's fatbinary writes, varying its inputs and options, and is checked
// against cuobjdump's listing in this package's tests:
//
//	header (16 bytes): u32 magic, u16 version (1), u16 header size (16),
//	                   u64 size of the entries that follow
//	entry:  u16 kind (1 PTX, 2 ELF), u16 (0x0101), u32 entry header size,
//	        u64 payload size (padded to 8)
//	        +16 u32 compressed size (0 when stored as is)
//	        +20 u32 offset of the ptxas options pointer (PTX: 64; ELF: 0)
//	        +24 u16 minor, u16 major: the code version cuobjdump prints
//	            (PTX: its .version; ELF: EI_VERSION, EI_ABIVERSION)
//	        +28 u32 the sm_XX number
//	        +32 u32 offset, u32 length of the identifier (--ident), or 0
//	        +40 u64 flags (0x1 64-bit, 0x2 debug, 0x4 CUDA producer,
//	            0x10 Linux, 0x2000 compressed with LZ4, 0x8000
//	            compressed with ZSTD: CUDA 12.8 and later, see zstd.go;
//	            0x100000 an architecture-specific target such as sm_90a,
//	            CUDA 12 and later, see archspecific.go)
//	        +56 u64 uncompressed size (0 when stored as is)
//	        +64 (PTX) u32 offset, u32 length of the ptxas options, or 0
//	        then the options and the identifier, each NUL-terminated and
//	        padded to 8; offsets count from the entry's start
//	        then the payload, at entry + header size: a cubin, or PTX
//	        text with a NUL after it (fatbinary strips its comments), or
//	        either compressed: one LZ4 block (see lz4.go) or one ZSTD
//	        frame (zstd.go), as the flags say.
//
// Fields not listed are kept raw in Entry.Header. All little-endian.
package nvfatbin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic is the first word of a container.
const Magic = 0xBA55ED50

// headerSize is the container header's size; entryMin the smallest entry
// header that holds every field this package reads.
const (
	headerSize = 16
	entryMin   = 64
	// entryMax bounds what a hostile header size makes us read. fatbinary
	// writes larger headers for long --ident and --cmdline strings (8 KiB
	// for 5,000 and 3,000 bytes); a command line holds at most 128 KiB in
	// one argument.
	entryMax = 1 << 20
)

// Kind is what an entry holds.
type Kind uint16

const (
	KindPTX Kind = 1
	KindELF Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "ptx"
	case KindELF:
		return "elf"
	}
	return fmt.Sprintf("kind %d", uint16(k))
}

// Flag bits seen in CUDA 11.8's output, and FlagZstd in CUDA 13's.
const (
	Flag64Bit      = 0x1
	FlagLinux      = 0x10
	FlagCompressed = 0x2000 // the payload is one LZ4 block
	FlagZstd       = 0x8000 // the payload is one ZSTD frame
)

// Compression is how an entry's payload is stored.
type Compression uint8

const (
	Stored Compression = iota
	LZ4
	Zstd
)

func (c Compression) String() string {
	switch c {
	case Stored:
		return "stored"
	case LZ4:
		return "LZ4"
	case Zstd:
		return "ZSTD"
	}
	return fmt.Sprintf("compression %d", uint8(c))
}

// Entry is one image of a container.
type Entry struct {
	Kind Kind
	Arch int // the sm_XX number: 80 for sm_80, 90 for sm_90a
	// Accelerated marks an architecture-specific target (sm_90a): flag
	// FlagAccelerated.
	Accelerated  bool
	Major, Minor int // code version
	Flags        uint64
	// Offset and Size locate the stored payload in the reader given to
	// Read: its meaningful bytes (the compressed ones when Compressed), not
	// the padding after them.
	Offset, Size int64
	// UncompressedSize is the size of the image once decompressed; Size
	// when it is stored as is.
	UncompressedSize int64
	Compressed       bool
	// Compression says how: LZ4 or Zstd when Compressed, else Stored.
	Compression Compression
	// Ident and PTXASOptions are the strings fatbinary's --ident and
	// --cmdline store; cuobjdump prints them as "identifier" and
	// "ptxasOptions".
	Ident, PTXASOptions string
	// Header is the entry header as stored, fields this package does not
	// interpret included; Ident and PTXASOptions are slices of it.
	Header string
}

// ArchName is "sm_80" for an entry of Arch 80, "sm_90a" for an
// architecture-specific one of Arch 90.
func (e *Entry) ArchName() string { return archName("sm_", e.Arch, e.Accelerated) }

// ComputeName is "compute_80", "compute_90a": the name of a PTX entry's
// target.
func (e *Entry) ComputeName() string { return archName("compute_", e.Arch, e.Accelerated) }

// ErrFormat marks malformed containers.
var ErrFormat = errors.New("nvfatbin: invalid fat binary")

// FormatError says what is wrong and where.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("nvfatbin: %s at offset %#x", e.Msg, e.Off)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

// ErrorOffset is Off: every format's error says where it is the same way,
// so that a walk over many formats reads it once (container.ErrorOffset).
func (e *FormatError) ErrorOffset() int64 { return e.Off }

// IsFatbin reports whether b starts with the container magic.
func IsFatbin(b []byte) bool {
	return len(b) >= 4 && binary.LittleEndian.Uint32(b) == Magic
}

// Read parses the container at offset off of r, whose size is size, and
// returns its entries and the container's size. It holds every entry:
// readers of inputs of any size use Scan.
func Read(r io.ReaderAt, off, size int64) ([]Entry, int64, error) {
	var entries []Entry
	n, err := scan(r, off, size, func(e *Entry) error {
		entries = append(entries, *e)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return entries, n, nil
}

// scan calls fn for each entry of the container at offset off of r, in
// order, and returns the container's size. Each entry is read when its
// turn comes, so memory holds one entry header (at most entryMax bytes)
// whatever the container's size.
func scan(r io.ReaderAt, off, size int64, fn func(*Entry) error) (int64, error) {
	var h [headerSize]byte
	if size-off < headerSize {
		return 0, &FormatError{off, "truncated header"}
	}
	if _, err := r.ReadAt(h[:], off); err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	switch {
	case le.Uint32(h[:]) != Magic:
		return 0, &FormatError{off, "bad magic"}
	case le.Uint16(h[4:]) != 1:
		return 0, &FormatError{off + 4, fmt.Sprintf("unknown version %d", le.Uint16(h[4:]))}
	case le.Uint16(h[6:]) != headerSize:
		return 0, &FormatError{off + 6, fmt.Sprintf("unknown header size %d", le.Uint16(h[6:]))}
	}
	body := le.Uint64(h[8:])
	if body > uint64(size-off-headerSize) {
		return 0, &FormatError{off + 8, fmt.Sprintf("entries of %d bytes run past the end of the input", body)}
	}
	end := off + headerSize + int64(body)
	for pos := off + headerSize; pos < end; {
		e, next, err := readEntry(r, pos, end)
		if err != nil {
			return 0, err
		}
		if err := fn(&e); err != nil {
			return 0, err
		}
		pos = next
	}
	return end - off, nil
}

// readEntry parses the entry at pos, which must end by end, and returns it
// with the offset of the next one.
func readEntry(r io.ReaderAt, pos, end int64) (Entry, int64, error) {
	le := binary.LittleEndian
	if end-pos < 16 {
		return Entry{}, 0, &FormatError{pos, "truncated entry header"}
	}
	var fixed [16]byte
	_, err := r.ReadAt(fixed[:], pos)
	if err != nil {
		return Entry{}, 0, err
	}
	hs := int64(le.Uint32(fixed[4:]))
	payload := le.Uint64(fixed[8:])
	switch {
	case hs < entryMin || hs > entryMax:
		return Entry{}, 0, &FormatError{pos + 4, fmt.Sprintf("entry header size %d outside %d..%d", hs, entryMin, entryMax)}
	case hs > end-pos:
		return Entry{}, 0, &FormatError{pos + 4, "entry header runs past the container"}
	case payload > uint64(end-pos-hs):
		return Entry{}, 0, &FormatError{pos + 8, fmt.Sprintf("payload of %d bytes runs past the container", payload)}
	}
	buf := make([]byte, hs)
	if _, err = r.ReadAt(buf, pos); err != nil {
		return Entry{}, 0, err
	}
	hdr := string(buf) // one copy; the strings in it are slices of it
	var ratio uint64
	e := Entry{
		Kind:   Kind(le.Uint16(buf)),
		Minor:  int(le.Uint16(buf[24:])),
		Major:  int(le.Uint16(buf[26:])),
		Arch:   int(le.Uint32(buf[28:])),
		Flags:  le.Uint64(buf[40:]),
		Offset: pos + hs,
		Size:   int64(payload),
		Header: hdr,
	}
	if e.Accelerated = e.Flags&FlagAccelerated != 0; e.Accelerated && e.Arch < firstAccelerated {
		return Entry{}, 0, &FormatError{pos + 40, fmt.Sprintf("flags %#x mark sm_%d architecture-specific, which no SM before %d is", e.Flags, e.Arch, firstAccelerated)}
	}
	if e.Ident, err = headerString(hdr, 32, pos); err != nil {
		return Entry{}, 0, err
	}
	if opts := int64(le.Uint32(buf[20:])); opts != 0 {
		if opts < entryMin || opts > hs-8 {
			return Entry{}, 0, &FormatError{pos + 20, fmt.Sprintf("options pointer at %d outside the entry header", opts)}
		}
		if e.PTXASOptions, err = headerString(hdr, opts, pos); err != nil {
			return Entry{}, 0, err
		}
	}
	e.UncompressedSize = e.Size
	if compressed := int64(le.Uint32(buf[16:])); e.Flags&(FlagCompressed|FlagZstd) != 0 || compressed != 0 {
		if compressed > e.Size {
			return Entry{}, 0, &FormatError{pos + 16, fmt.Sprintf("compressed size %d larger than the payload (%d)", compressed, e.Size)}
		}
		e.Compressed, e.Size = true, compressed
		e.Compression, ratio = LZ4, MaxRatio
		switch e.Flags & (FlagCompressed | FlagZstd) {
		case FlagCompressed | FlagZstd:
			return Entry{}, 0, &FormatError{pos + 40, fmt.Sprintf("flags %#x mark the entry compressed with both LZ4 and ZSTD", e.Flags)}
		case FlagZstd:
			e.Compression, ratio = Zstd, MaxRatioZstd
		}
		u := le.Uint64(buf[56:])
		if u > ratio*uint64(compressed)+16 {
			return Entry{}, 0, &FormatError{pos + 56, fmt.Sprintf("%d compressed bytes (%s) cannot inflate to the %d declared", compressed, e.Compression, u)}
		}
		e.UncompressedSize = int64(u)
	}
	return e, pos + hs + int64(payload), nil
}

// headerString reads the string whose offset and length, counted from
// the entry's start, are at hdr[at:]; no offset is no string.
func headerString(hdr string, at, pos int64) (string, error) {
	off, n := int64(u32(hdr, at)), int64(u32(hdr, at+4))
	switch {
	case off == 0:
		return "", nil
	case off < entryMin || off > int64(len(hdr)) || n > int64(len(hdr))-off:
		return "", &FormatError{pos + at, fmt.Sprintf("string of %d bytes at %d outside the %d-byte entry header", n, off, len(hdr))}
	}
	return hdr[off : off+n], nil
}

// u32 is the little-endian word at s[at:].
func u32(s string, at int64) uint32 {
	return uint32(s[at]) | uint32(s[at+1])<<8 | uint32(s[at+2])<<16 | uint32(s[at+3])<<24
}

// ReadAll parses the containers stored back to back in r, as in a linked
// program's .nv_fatbin section; zero bytes between and after them are
// padding. It holds every entry: readers of inputs of any size use Scan.
func ReadAll(r io.ReaderAt, size int64) ([]Entry, error) {
	var all []Entry
	err := Scan(r, size, func(e *Entry) error {
		all = append(all, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// Scan calls fn for each entry of the containers stored back to back in
// r, as ReadAll reads them, one at a time: memory holds one entry, not
// all of them (a hostile container packs an entry header in every 72
// bytes, or a megabyte of strings in each). An error from fn stops the
// scan and is returned. A container found damaged stops it too, after fn
// has seen the entries before the damage.
func Scan(r io.ReaderAt, size int64, fn func(*Entry) error) error {
	r = newReadAhead(r)
	for pos := int64(0); pos < size; {
		next, err := skipZeros(r, pos, size)
		if err != nil || next >= size {
			return err
		}
		n, err := scan(r, next, size, fn)
		if err != nil {
			return err
		}
		pos = next + n
	}
	return nil
}

func skipZeros(r io.ReaderAt, pos, size int64) (int64, error) {
	var b [8]byte
	for pos < size {
		n := min(int64(len(b)), size-pos)
		if _, err := r.ReadAt(b[:n], pos); err != nil && err != io.EOF {
			return pos, err
		}
		for i := int64(0); i < n; i++ {
			if b[i] != 0 {
				return pos + i, nil
			}
		}
		pos += n
	}
	return size, nil
}

// Open returns a reader over the stored payload of e in r.
func (e *Entry) Open(r io.ReaderAt) *io.SectionReader {
	return io.NewSectionReader(r, e.Offset, e.Size)
}
