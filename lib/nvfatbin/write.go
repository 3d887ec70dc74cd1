package nvfatbin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/cubin"
)

// Image is one entry to write: a cubin (KindELF) for sm_Arch, or PTX text
// (KindPTX) for compute_Arch, as given to fatbinary's
// --image=profile=sm_XX,file=... or profile=compute_XX.
type Image struct {
	Kind Kind
	Arch int
	// Accelerated marks an architecture-specific target (sm_90a): the
	// entry gets FlagAccelerated. CUDA 11.8's fatbinary has none.
	Accelerated bool
	Data        []byte
	Name        string // the file it came from, for errors
	// R and Size give a cubin's bytes when Data is nil: the cubin is then
	// copied into the output as it is written (WriteTo), never held in
	// memory, unless it is to be compressed (see MaxCompressed).
	R    io.ReaderAt
	Size int64
}

// WriteOptions are fatbinary's options that change what it writes.
type WriteOptions struct {
	// Bits32 marks the entries 32-bit (fatbinary -32 without -64); cubins
	// must then be ELF32. The default is 64-bit, as with -64.
	Bits32 bool
	// ELF32 requires ELF32 cubins in entries marked 64-bit: what fatbinary
	// does when given neither -32 nor -64.
	ELF32 bool
	// Debug marks the entries as having debug information (-g); their
	// cubins are then compressed unless NoCompress.
	Debug bool
	// CUDA sets the producer flag fatbinary's deprecated --cuda sets.
	CUDA bool
	// Ident is stored in every entry (--ident), cuobjdump's "identifier".
	Ident string
	// PTXASOptions is stored in PTX entries (--cmdline), cuobjdump's
	// "ptxasOptions".
	PTXASOptions string
	// NoCompress stores every entry as is (--compress=false); by default
	// PTX, and cubins of a Debug fat binary, are compressed as fatbinary
	// compresses them.
	NoCompress bool
	// CompressAll compresses cubins too (--compress-all).
	CompressAll bool
	// Release is the CUDA release whose fatbinary to write as (default
	// CUDA 11.8's).
	Release Release
	// CompressMode is CUDA 13's --compress-mode; "" is its default. Other
	// releases have none.
	CompressMode CompressMode
}

// Flag bits of an entry.
const (
	FlagDebug    = 0x2
	FlagProducer = 0x4 // CUDA as producer
)

// entryHeaderSize is the fixed part of an entry header; PTX entries add
// an 8-byte pointer to their ptxas options.
const entryHeaderSize = 64

// ImageError says which input image cannot be written, and why.
type ImageError struct {
	Name string
	Msg  string
}

func (e *ImageError) Error() string { return fmt.Sprintf("nvfatbin: %s: %s", e.Name, e.Msg) }

// Write returns the fat binary of images, in their order, byte for byte
// what `fatbinary --create` of opt.Release writes for the same images and
// options (but for ZSTD payloads: see compressZstd).
func Write(images []Image, opt WriteOptions) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteTo(&b, images, opt); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteTo writes the fat binary of images to w, as Write returns it.
// Cubins given by a reader (Image.R) and stored as they are go from the
// reader to w, so memory holds the compressed entries, not the images.
func WriteTo(w io.Writer, images []Image, opt WriteOptions) error {
	entries := make([]planned, len(images))
	body := int64(0)
	for i := range images {
		e, err := plan(&images[i], &opt)
		if err != nil {
			return err
		}
		entries[i] = e
		body += int64(len(e.head)) + int64(pad8(int(e.size)))
	}
	var h [headerSize]byte
	le := binary.LittleEndian
	le.PutUint32(h[:], Magic)
	le.PutUint16(h[4:], 1)
	le.PutUint16(h[6:], headerSize)
	le.PutUint64(h[8:], uint64(body))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	for _, e := range entries {
		if err := e.writeTo(w); err != nil {
			return err
		}
	}
	return nil
}

// planned is an entry ready to write: its header, then size bytes of
// payload from data or, for a cubin stored as is, from stream; then the
// padding to 8.
type planned struct {
	head   []byte
	data   []byte
	stream *io.SectionReader
	size   int64
}

func (e *planned) writeTo(w io.Writer) error {
	if _, err := w.Write(e.head); err != nil {
		return err
	}
	var err error
	if e.stream != nil {
		var n int64
		n, err = io.Copy(w, e.stream)
		if err == nil && n != e.size {
			err = io.ErrUnexpectedEOF
		}
	} else {
		_, err = w.Write(e.data)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(make([]byte, pad8(int(e.size))-int(e.size)))
	return err
}

// plan lays out one entry: header, the strings it points to, and where
// its payload comes from.
func plan(im *Image, opt *WriteOptions) (planned, error) {
	payload, major, minor, err := prepare(im, opt)
	if err != nil {
		return planned{}, err
	}
	flags := uint64(FlagLinux)
	if !opt.Bits32 {
		flags |= Flag64Bit
	}
	if opt.Debug {
		flags |= FlagDebug
	}
	if opt.CUDA {
		flags |= FlagProducer
	}
	if im.Accelerated {
		flags |= FlagAccelerated
	}
	e := planned{data: payload, size: int64(len(payload))}
	if payload == nil { // a cubin from a reader
		e.size = im.Size
	}
	uncompressed := e.size
	compressed := 0
	if c := opt.compression(im.Kind, e.size); c != Stored {
		if payload == nil {
			if payload, err = readAll(im); err != nil {
				return planned{}, err
			}
		}
		if payload, err = opt.compress(c, payload); err != nil {
			return planned{}, &ImageError{im.Name, err.Error()}
		}
		e.data, e.size = payload, int64(len(payload))
		compressed, flags = len(payload), flags|FlagCompressed
		if c == Zstd {
			flags ^= FlagCompressed | FlagZstd
		}
	} else if payload == nil {
		e.stream = io.NewSectionReader(im.R, 0, im.Size)
	}

	// The header's tail: for PTX, the offset and size of the ptxas
	// options; then the options and the identifier, each NUL-terminated
	// and padded to 8. CUDA 12.4 and 13 put the identifier first and store
	// the options, empty or not; 12.4 stores the identifier even when
	// empty, though without pointing to it.
	h := make([]byte, entryHeaderSize)
	le := binary.LittleEndian
	ident := func() {
		if opt.Ident != "" {
			le.PutUint32(h[32:], uint32(len(h)))
			le.PutUint32(h[36:], uint32(len(opt.Ident)))
		}
		if opt.Ident != "" || opt.Release == CUDA124 {
			h = appendString(h, opt.Ident)
		}
	}
	if opt.Release >= CUDA124 {
		ident()
	}
	if im.Kind == KindPTX {
		at := len(h)
		le.PutUint32(h[20:], uint32(at))
		h = append(h, make([]byte, 8)...)
		if opt.PTXASOptions != "" || opt.Release >= CUDA124 {
			le.PutUint32(h[at:], uint32(len(h)))
			le.PutUint32(h[at+4:], uint32(len(opt.PTXASOptions)))
			h = appendString(h, opt.PTXASOptions)
		}
	}
	if opt.Release < CUDA124 {
		ident()
	}
	if len(h) > entryMax {
		return planned{}, &ImageError{im.Name, fmt.Sprintf("identifier and ptxas options make a %d-byte entry header, over the %d a reader takes", len(h), entryMax)}
	}
	le.PutUint16(h[0:], uint16(im.Kind))
	le.PutUint16(h[2:], 0x0101)
	le.PutUint32(h[4:], uint32(len(h)))
	le.PutUint64(h[8:], uint64(pad8(int(e.size))))
	le.PutUint32(h[16:], uint32(compressed))
	le.PutUint16(h[24:], uint16(minor))
	le.PutUint16(h[26:], uint16(major))
	le.PutUint32(h[28:], uint32(im.Arch))
	le.PutUint64(h[40:], flags)
	if compressed != 0 {
		le.PutUint64(h[56:], uint64(uncompressed))
	}
	e.head = h
	return e, nil
}

// LargeCubin is the size over which CUDA 11.8's fatbinary compresses a
// cubin even without -g or --compress-all (unless --compress=false):
// 10,000,000 bytes stored as is, 10,000,001 compressed, whatever the
// bytes (checked live by tests/fatbin TestFatbinLargeCubins).
const LargeCubin = 10_000_000

// MaxCompressed is the largest cubin compressed: LZ4 compresses one block
// in memory, input and output, so a larger one is stored as is, streamed
// (fatbinary compresses it; the difference is in docs/nvfatbin.md).
const MaxCompressed = 64 << 20

// readAll reads a cubin given by a reader, to compress it.
func readAll(im *Image) ([]byte, error) {
	b := make([]byte, im.Size)
	if _, err := im.R.ReadAt(b, 0); err != nil && !(err == io.EOF && len(b) == 0) {
		return nil, &ImageError{im.Name, err.Error()}
	}
	return b, nil
}

// prepare checks an image as fatbinary checks it and returns the payload
// to store and its code version.
func prepare(im *Image, opt *WriteOptions) ([]byte, int, int, error) {
	if im.Arch <= 0 || im.Arch > 0xFFFF {
		return nil, 0, 0, &ImageError{im.Name, fmt.Sprintf("architecture %d out of range", im.Arch)}
	}
	if err := opt.Release.AcceleratedError(im.Arch, im.Accelerated); err != nil {
		return nil, 0, 0, &ImageError{im.Name, err.Error()}
	}
	switch im.Kind {
	case KindPTX:
		major, minor, err := PTXVersion(im.Data)
		if err != nil {
			return nil, 0, 0, &ImageError{im.Name, err.Error()}
		}
		return minifyPTX(im.Data, opt.Release == CUDA124), major, minor, nil
	case KindELF:
		head := im.Data
		if head == nil && im.R != nil { // checkCubin reads the ELF header only
			head = make([]byte, min(im.Size, 64))
			if _, err := im.R.ReadAt(head, 0); err != nil {
				return nil, 0, 0, &ImageError{im.Name, err.Error()}
			}
		}
		major, minor, err := checkCubin(im, head, opt.Bits32 || opt.ELF32)
		return im.Data, major, minor, err
	}
	return nil, 0, 0, &ImageError{im.Name, fmt.Sprintf("unknown kind %d", im.Kind)}
}

// checkCubin checks what fatbinary checks of a cubin, its ELF class and
// that its SM (in e_flags, where its ELF ABI version puts it: see
// lib/cubin) is the profile's, and returns its code version: EI_VERSION
// and EI_ABIVERSION.
func checkCubin(im *Image, b []byte, bits32 bool) (int, int, error) {
	class, flagsAt := byte(2), 48 // ELFCLASS64
	if bits32 {
		class, flagsAt = 1, 36
	}
	switch {
	case len(b) < flagsAt+4 || string(b[:4]) != "\x7fELF":
		return 0, 0, &ImageError{im.Name, "not an ELF file"}
	case b[4] != class:
		return 0, 0, &ImageError{im.Name, fmt.Sprintf("elf not '%dbit'", map[byte]int{1: 32, 2: 64}[class])}
	}
	t, err := cubin.FromHeader(b)
	if err != nil {
		return 0, 0, &ImageError{im.Name, err.Error()}
	}
	if t.SM != im.Arch {
		return 0, 0, &ImageError{im.Name, fmt.Sprintf("elf arch '%d' does not match '%d'", t.SM, im.Arch)}
	}
	return int(b[6]), int(b[8]), nil
}

func appendString(b []byte, s string) []byte {
	n := pad8(len(s) + 1)
	b = append(b, s...)
	return append(b, make([]byte, n-len(s))...)
}

func pad8(n int) int { return (n + 7) &^ 7 }
