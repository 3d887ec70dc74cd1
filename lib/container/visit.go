package container

import "io"

// Piece is one part of a container that the walkers may look inside: an
// archive member, a bundle entry, later a section or an image.
type Piece struct {
	// Name is the archive member's name, the bundle entry's ID.
	Name string
	// Offset and Size place the piece in the container's bytes.
	Offset, Size int64
}

// Open returns a reader over the piece in r, the container it is part of.
func (p Piece) Open(r io.ReaderAt) *io.SectionReader {
	return io.NewSectionReader(r, p.Offset, p.Size)
}

// Visit hears of each piece of a container, in order; an error stops the
// walk and is returned as it is. inspect and extract both walk a format
// through the one function in this package that parses it (its file:
// archive.go, bundle.go), so a format's parsing and bounds are written once.
type Visit func(Piece) error

// Walker is the shape of every format's walk: it parses the container in
// the size bytes of r, calls visit for each piece and returns the format's
// typed error (with an offset into r) if the container is malformed. The
// pieces visited before a malformed one are kept.
type Walker func(r io.ReaderAt, size int64, visit Visit) error
