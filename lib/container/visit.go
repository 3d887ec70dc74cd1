package container

import (
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// Piece is one part of a container that the walkers may look inside: an
// archive member, a bundle entry, a section.
type Piece struct {
	Kind Kind
	// Name is the archive member's name, the bundle entry's ID or the
	// section's name.
	Name string
	// Offset and Size place the piece in the container's bytes.
	Offset, Size int64
	// Data reads the piece as its format reads it (an ELF section of type
	// SHT_NULL reads as empty, whatever its size says).
	Data *io.SectionReader
	// Image is an OffloadBinary's image, for Image pieces. Offset is then
	// in the binary's bytes as read: its inflated copy if Image.Compressed.
	Image *offloadbin.Image
	// Fatbin is an NVIDIA fat binary's entry, for FatbinEntry pieces.
	Fatbin *nvfatbin.Entry
}

// Kind says what a piece is.
type Kind int

const (
	Member       Kind = iota // an ar archive member
	Entry                    // a bundle entry; Name is its ID
	Section                  // an object file's section
	EntrySection             // an ELF section holding a bundle entry (__CLANG_OFFLOAD_BUNDLE__ID)
	HostMarker               // an ELF bundle section of one zero byte: the object itself is the host entry
	Image                    // an OffloadBinary's image
	FatbinEntry              // an NVIDIA fat binary's entry
	Root                     // the input of a walk (Walk)
	Record                   // a compressed record of a sequence (Walk)
	Payload                  // what a compressed record or fat-binary entry decodes to (Walk)
)

// EntryID is the bundle entry ID of an entry, entry section or host marker.
func (p Piece) EntryID() string {
	if p.Kind == Entry {
		return p.Name
	}
	return strings.TrimPrefix(p.Name, bundle.Magic)
}

// Visit hears of each piece of a container, in order; an error stops the
// walk and is returned as it is. Each format is parsed by one function in
// this package (its file: archive.go, bundle.go, textbundle.go, coff.go,
// elf.go, offloadbin.go, nvfatbin.go), which the one recursive walk
// (Walk) calls through the format table (formats.go), so a format's
// parsing and which of its parts are looked inside are written once.
type Visit func(Piece) error

// Walker is the shape of every format's walk: it parses the container in
// the size bytes of r, calls visit for each piece and returns the format's
// typed error (with an offset into r) if the container is malformed. The
// pieces visited before a malformed one are kept.
type Walker func(r io.ReaderAt, size int64, visit Visit) error

// piece is a piece whose data is its range of r.
func piece(r io.ReaderAt, kind Kind, name string, off, size int64) Piece {
	return Piece{Kind: kind, Name: name, Offset: off, Size: size, Data: io.NewSectionReader(r, off, size)}
}
