// Package offloadbin reads and writes LLVM's OffloadBinary container
// (magic 0x10FF10AD), the format produced by llvm-offload-binary (formerly
// clang-offload-packager) and embedded by clang in ELF sections of type
// SHT_LLVM_OFFLOADING.
//
// Write produces version 1, the only version LLVM 22 reads, byte for byte as
// LLVM 22's OffloadBinary::write does. WriteEntries also writes the later
// versions of LLVM main, version 2 (several entries in one binary, values
// with an explicit size) and version 3 (optionally compressed with zlib or
// zstd), and Read accepts all three.
//
// All integers are little-endian. Every offset read from a file is checked
// against the binary's own Size before it is used; LLVM 22 trusts several of
// them, this package does not.
package offloadbin

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/offloadkind"
)

// Magic starts every OffloadBinary.
const Magic = "\x10\xff\x10\xad"

// Alignment is the alignment of a binary, and of its image, within a section;
// Size is always a multiple of it when written by LLVM or by Write.
const Alignment = 8

// Format versions.
const (
	// Version is the version Write produces (LLVM 22's only version).
	Version = 1
	// MaxVersion is the newest version Read understands (LLVM main).
	MaxVersion = 3
)

// On-disk record sizes.
const (
	headerSize        = 32 // v1 and v2
	headerSizeV3      = 40 // v3 adds InflatedSize
	entrySize         = 40
	stringEntrySizeV1 = 16 // key offset, value offset
	stringEntrySizeV2 = 24 // plus value size
)

// ImageKind is the kind of device image an entry holds.
type ImageKind uint16

// Image kinds (LLVM's IMG_*).
const (
	ImageNone      ImageKind = 0
	ImageObject    ImageKind = 1
	ImageBitcode   ImageKind = 2
	ImageCubin     ImageKind = 3
	ImageFatbinary ImageKind = 4
	ImagePTX       ImageKind = 5
	ImageSPIRV     ImageKind = 6
)

// ParseImageKind maps a file extension (without the dot) to an image kind as
// LLVM 22's getImageKind does: o, bc, cubin, fatbin and s are known and
// everything else is ImageNone. LLVM 22 does not map "spv" (LLVM main maps
// it to ImageSPIRV); we keep 22's behaviour so that packaged output stays
// byte-identical to llvm-offload-binary-22.
func ParseImageKind(ext string) ImageKind {
	switch ext {
	case "o":
		return ImageObject
	case "bc":
		return ImageBitcode
	case "cubin":
		return ImageCubin
	case "fatbin":
		return ImageFatbinary
	case "s":
		return ImagePTX
	}
	return ImageNone
}

// Ext is LLVM 22's getImageKindName: the file extension used for extracted
// images, "" for ImageNone, ImageSPIRV (unnamed in 22) and unknown kinds.
func (k ImageKind) Ext() string {
	switch k {
	case ImageObject:
		return "o"
	case ImageBitcode:
		return "bc"
	case ImageCubin:
		return "cubin"
	case ImageFatbinary:
		return "fatbin"
	case ImagePTX:
		return "s"
	}
	return ""
}

// ObjdumpName is the name llvm-objdump --offloading prints for the kind.
func (k ImageKind) ObjdumpName() string {
	switch k {
	case ImageObject:
		return "elf"
	case ImageBitcode:
		return "llvm ir"
	case ImageCubin:
		return "cubin"
	case ImageFatbinary:
		return "fatbinary"
	case ImagePTX:
		return "ptx"
	}
	return "<none>"
}

// String returns Ext for named kinds, "spv" for ImageSPIRV (its name in LLVM
// main), "none" for ImageNone and ImageKind(n) for unknown values.
func (k ImageKind) String() string {
	switch k {
	case ImageNone:
		return "none"
	case ImageSPIRV:
		return "spv"
	}
	if s := k.Ext(); s != "" {
		return s
	}
	return fmt.Sprintf("ImageKind(%d)", uint16(k))
}

// OffloadKind is the programming model that produced an image: the
// module's one offload-kind type. The entry's 16-bit field holds its value
// as is (LLVM's OFK_* bit flags), so unknown values survive a rewrite.
type OffloadKind = offloadkind.Kind

// Offload kinds (LLVM's OFK_*). Deprecated: new code names them as
// offloadkind does (offloadkind.HIP); these stay for existing callers.
const (
	OffloadNone   = offloadkind.None
	OffloadOpenMP = offloadkind.OpenMP
	OffloadCuda   = offloadkind.CUDA
	OffloadHIP    = offloadkind.HIP
	OffloadSYCL   = offloadkind.SYCL
)

// ParseOffloadKind is LLVM's getOffloadKind. Deprecated: use offloadkind.Parse.
func ParseOffloadKind(s string) OffloadKind { return offloadkind.Parse(s) }

// KV is one metadata string pair of an entry ("triple", "arch", ...).
type KV struct{ Key, Value string }

// Image is one entry of an OffloadBinary: metadata plus the location of the
// device image. The image bytes are not loaded; Open reads them on demand.
type Image struct {
	ImageKind   ImageKind
	OffloadKind OffloadKind
	Flags       uint32
	// Strings are the metadata pairs in file order. Keys may repeat in a
	// hostile file; Get returns the last value, as LLVM's map does.
	Strings []KV

	// Version is the format version of the containing binary.
	Version uint32
	// Index is the entry's position within its binary (0 for version 1).
	Index int
	// BinaryOffset is where the containing binary starts in the reader that
	// was passed to Read, and BinarySize its Size field.
	BinaryOffset, BinarySize int64
	// Offset and Size locate the image. For uncompressed binaries Offset is
	// absolute in the reader passed to Read; for compressed ones
	// (Compressed is true) it is an offset into the inflated binary.
	Offset, Size int64
	Compressed   bool

	src io.ReaderAt
}

// Get returns the value of key, and whether it is present.
func (im *Image) Get(key string) (string, bool) {
	for i := len(im.Strings) - 1; i >= 0; i-- {
		if im.Strings[i].Key == key {
			return im.Strings[i].Value, true
		}
	}
	return "", false
}

// Triple returns the "triple" string, or "".
func (im *Image) Triple() string { s, _ := im.Get("triple"); return s }

// Arch returns the "arch" string, or "".
func (im *Image) Arch() string { s, _ := im.Get("arch"); return s }

// Open returns a reader for the image bytes. It is only valid for images
// returned by Read or ReadAll.
func (im *Image) Open() *io.SectionReader {
	return io.NewSectionReader(im.src, im.Offset, im.Size)
}

// IsOffloadBinary reports whether b starts with the OffloadBinary magic.
func IsOffloadBinary(b []byte) bool {
	return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }
