package nvfatbin

import (
	"encoding/binary"
	"fmt"
)

// Image is one entry to write: a cubin (KindELF) for sm_Arch, or PTX text
// (KindPTX) for compute_Arch, as given to fatbinary's
// --image=profile=sm_XX,file=... or profile=compute_XX.
type Image struct {
	Kind Kind
	Arch int
	Data []byte
	Name string // the file it came from, for errors
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
// what CUDA 11.8's `fatbinary --create` writes for the same images and
// options.
func Write(images []Image, opt WriteOptions) ([]byte, error) {
	out := make([]byte, headerSize, headerSize+totalSize(images))
	for i := range images {
		e, err := entry(&images[i], &opt)
		if err != nil {
			return nil, err
		}
		out = append(out, e...)
	}
	le := binary.LittleEndian
	le.PutUint32(out, Magic)
	le.PutUint16(out[4:], 1)
	le.PutUint16(out[6:], headerSize)
	le.PutUint64(out[8:], uint64(len(out)-headerSize))
	return out, nil
}

func totalSize(images []Image) int {
	n := 0
	for i := range images {
		n += entryHeaderSize + 64 + len(images[i].Data) + 8
	}
	return n
}

// entry lays out one entry: header, the strings it points to, payload.
func entry(im *Image, opt *WriteOptions) ([]byte, error) {
	payload, major, minor, err := prepare(im, opt)
	if err != nil {
		return nil, err
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
	uncompressed := len(payload)
	compressed := 0
	if opt.CompressAll || !opt.NoCompress && (im.Kind == KindPTX || opt.Debug) {
		if payload, err = Compress(payload); err != nil {
			return nil, &ImageError{im.Name, err.Error()}
		}
		compressed, flags = len(payload), flags|FlagCompressed
	}

	// The header's tail: for PTX, the offset and size of the ptxas
	// options; then the options and the identifier, each NUL-terminated
	// and padded to 8.
	h := make([]byte, entryHeaderSize)
	le := binary.LittleEndian
	if im.Kind == KindPTX {
		le.PutUint32(h[20:], entryHeaderSize)
		h = append(h, make([]byte, 8)...)
		if opt.PTXASOptions != "" {
			le.PutUint32(h[entryHeaderSize:], uint32(len(h)))
			le.PutUint32(h[entryHeaderSize+4:], uint32(len(opt.PTXASOptions)))
			h = appendString(h, opt.PTXASOptions)
		}
	}
	if opt.Ident != "" {
		le.PutUint32(h[32:], uint32(len(h)))
		le.PutUint32(h[36:], uint32(len(opt.Ident)))
		h = appendString(h, opt.Ident)
	}
	if len(h) > entryMax {
		return nil, &ImageError{im.Name, fmt.Sprintf("identifier and ptxas options make a %d-byte entry header, over the %d a reader takes", len(h), entryMax)}
	}
	le.PutUint16(h[0:], uint16(im.Kind))
	le.PutUint16(h[2:], 0x0101)
	le.PutUint32(h[4:], uint32(len(h)))
	le.PutUint64(h[8:], uint64(pad8(len(payload))))
	le.PutUint32(h[16:], uint32(compressed))
	le.PutUint16(h[24:], uint16(minor))
	le.PutUint16(h[26:], uint16(major))
	le.PutUint32(h[28:], uint32(im.Arch))
	le.PutUint64(h[40:], flags)
	if compressed != 0 {
		le.PutUint64(h[56:], uint64(uncompressed))
	}
	h = append(h, payload...)
	return append(h, make([]byte, pad8(len(payload))-len(payload))...), nil
}

// prepare checks an image as fatbinary checks it and returns the payload
// to store and its code version.
func prepare(im *Image, opt *WriteOptions) ([]byte, int, int, error) {
	if im.Arch <= 0 || im.Arch > 0xFFFF {
		return nil, 0, 0, &ImageError{im.Name, fmt.Sprintf("architecture %d out of range", im.Arch)}
	}
	switch im.Kind {
	case KindPTX:
		major, minor, err := PTXVersion(im.Data)
		if err != nil {
			return nil, 0, 0, &ImageError{im.Name, err.Error()}
		}
		return MinifyPTX(im.Data), major, minor, nil
	case KindELF:
		major, minor, err := checkCubin(im, opt.Bits32 || opt.ELF32)
		return im.Data, major, minor, err
	}
	return nil, 0, 0, &ImageError{im.Name, fmt.Sprintf("unknown kind %d", im.Kind)}
}

// checkCubin checks what fatbinary checks of a cubin, its ELF class and
// that its architecture (the low byte of e_flags) is the profile's, and
// returns its code version: EI_VERSION and EI_ABIVERSION.
func checkCubin(im *Image, bits32 bool) (int, int, error) {
	b := im.Data
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
	if arch := int(b[flagsAt]); arch != im.Arch {
		return 0, 0, &ImageError{im.Name, fmt.Sprintf("elf arch '%d' does not match '%d'", arch, im.Arch)}
	}
	return int(b[6]), int(b[8]), nil
}

func appendString(b []byte, s string) []byte {
	n := pad8(len(s) + 1)
	b = append(b, s...)
	return append(b, make([]byte, n-len(s))...)
}

func pad8(n int) int { return (n + 7) &^ 7 }
