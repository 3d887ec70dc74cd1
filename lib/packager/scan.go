package packager

import (
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// ErrUnsupportedInput is returned by Scan for inputs LLVM would search but
// this package cannot: LLVM bitcode (whose embedded binaries are found
// through IR metadata) and thin archives. Failing is safer than LLVM's
// alternative of finding nothing without saying so.
var ErrUnsupportedInput = errors.New("packager: unsupported input")

// maxArchiveDepth bounds archives nested in archives.
const maxArchiveDepth = 8

// Found is an image found in an input.
type Found struct {
	offloadbin.Image
	// Source is the name LLVM gives the buffer the image came from: the input
	// name, or the member name for images inside an archive. --archive uses
	// it to name members.
	Source string
}

// Scan finds the offload binaries in an input, as LLVM 22's
// extractOffloadBinaries does: a raw offload binary (or several back to
// back), an ELF relocatable object, executable or shared object (sections of
// type SHT_LLVM_OFFLOADING, whatever their name), a COFF object (sections
// named .llvm.offloading*), or an archive of those.
// Other inputs yield nothing. name is the input's name. Image locations are
// absolute in r, also for images inside archive members and ELF sections.
//
// The containers are walked by lib/container's walkers (ELFOffloading,
// COFFSections, Members); Scan decides which to use from the input's first
// bytes, as LLVM's identify_magic does, and reads the binaries in what
// they visit.
//
// Compressed binaries anywhere in the input draw on one decompression
// budget (budget.DefaultLimit, unless opts give one), so that an archive
// of many members cannot inflate without bound.
func Scan(r io.ReaderAt, size int64, name string, opts ...offloadbin.Option) ([]Found, error) {
	s := &scanner{r: r, opts: append([]offloadbin.Option{offloadbin.WithBudget(budget.New(0))}, opts...)}
	if err := s.input(0, size, name, 0); err != nil {
		return nil, err
	}
	return s.found, nil
}

// scanner collects the images of one input.
type scanner struct {
	r     io.ReaderAt // the whole input
	opts  []offloadbin.Option
	found []Found
}

// input scans the input, or archive member, called name in r[off:off+size],
// depth archives down.
func (s *scanner) input(off, size int64, name string, depth int) error {
	var head [28]byte
	n, err := s.r.ReadAt(head[:min(int64(len(head)), size)], off)
	if err != nil && err != io.EOF {
		return err
	}
	in := io.NewSectionReader(s.r, off, size)
	// binaries reads the binaries in a section that a walker visits.
	binaries := func(p container.Piece) error { return s.binaries(off+p.Offset, p.Size, name) }
	switch b := head[:n]; {
	case offloadbin.IsOffloadBinary(b):
		return s.binaries(off, size, name)
	case isBitcode(b):
		return fmt.Errorf("%w: %s: LLVM bitcode", ErrUnsupportedInput, name)
	case isELFObject(b):
		// elfobj's errors go on as they are.
		return walk(func(v container.Visit) error { return container.ELFOffloading(in, size, v) }, binaries, nil)
	case string(b[:min(len(b), 8)]) == ar.Magic || string(b[:min(len(b), 8)]) == ar.ThinMagic:
		return s.archive(off, size, name, depth)
	case coffobj.IsObject(b):
		f, err := coffobj.Open(in, size, name)
		if err != nil {
			return coffError(err)
		}
		return walk(func(v container.Visit) error { return container.COFFSections(f, v) }, binaries, coffError)
	}
	return nil
}

// binaries reads the binaries in r[off:off+size], found in name.
func (s *scanner) binaries(off, size int64, name string) error {
	images, err := offloadbin.ReadSection(s.r, off, size, s.opts...)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for _, im := range images {
		s.found = append(s.found, Found{Image: im, Source: name})
	}
	return nil
}

// archive scans the members of the archive called name in r[off:off+size].
func (s *scanner) archive(off, size int64, name string, depth int) error {
	if depth >= maxArchiveDepth {
		return fmt.Errorf("%w: %s: archives nested too deeply", ErrUnsupportedInput, name)
	}
	// Member names are only used as labels here, never as paths: Members.
	in := io.NewSectionReader(s.r, off, size)
	members := func(v container.Visit) error { return container.Members(in, size, v) }
	member := func(p container.Piece) error { return s.input(off+p.Offset, p.Size, p.Name, depth+1) }
	return walk(members, member, func(err error) error {
		if errors.Is(err, ar.ErrThin) {
			return fmt.Errorf("%w: %s: thin archive", ErrUnsupportedInput, name)
		}
		return fmt.Errorf("%s: %w", name, err)
	})
}

// walk runs a walk of a container with visit. The errors of what visit
// read in the container go on as they are, those of the container itself
// through wrap (if not nil), which names the container as the package does.
func walk(run func(container.Visit) error, visit container.Visit, wrap func(error) error) error {
	var inner error
	err := run(func(p container.Piece) error {
		inner = visit(p)
		return inner
	})
	switch {
	case inner != nil:
		return inner
	case err == nil || wrap == nil:
		return err
	}
	return wrap(err)
}

// isELFObject matches what LLVM's identify_magic calls a relocatable object,
// executable or shared object (e_type 1, 2 or 3 in the file's byte order).
func isELFObject(b []byte) bool {
	if !elfobj.IsELF(b) || len(b) < 18 {
		return false
	}
	lo, hi := b[16], b[17]
	if b[5] == 2 { // big-endian
		lo, hi = hi, lo
	}
	return hi == 0 && lo >= 1 && lo <= 3
}
