package packager

import (
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/coffobj"
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
// Compressed binaries anywhere in the input draw on one decompression
// budget (budget.DefaultLimit, unless opts give one), so that an archive
// of many members cannot inflate without bound.
func Scan(r io.ReaderAt, size int64, name string, opts ...offloadbin.Option) ([]Found, error) {
	opts = append([]offloadbin.Option{offloadbin.WithBudget(budget.New(0))}, opts...)
	return scan(r, 0, size, name, 0, opts)
}

func scan(r io.ReaderAt, off, size int64, name string, depth int, opts []offloadbin.Option) ([]Found, error) {
	var head [28]byte
	n, err := r.ReadAt(head[:min(int64(len(head)), size)], off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	sec := io.NewSectionReader(r, off, size)
	switch b := head[:n]; {
	case offloadbin.IsOffloadBinary(b):
		return scanBinaries(r, off, size, name, opts)
	case isBitcode(b):
		return nil, fmt.Errorf("%w: %s: LLVM bitcode", ErrUnsupportedInput, name)
	case isELFObject(b):
		f, err := elfobj.Open(sec, size)
		if err != nil {
			return nil, err
		}
		var out []Found
		for _, s := range f.SectionsByType(elfobj.SHT_LLVM_OFFLOADING) {
			_, soff, ssize := f.SectionReader(s).Outer()
			found, err := scanBinaries(r, off+soff, ssize, name, opts)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
		return out, nil
	case string(b[:min(len(b), 8)]) == ar.Magic || string(b[:min(len(b), 8)]) == ar.ThinMagic:
		return scanArchive(r, off, size, name, depth, opts)
	case coffobj.IsObject(b):
		return scanCOFF(r, off, size, name, opts)
	}
	return nil, nil
}

// scanBinaries reads the binaries in r[off:off+size].
func scanBinaries(r io.ReaderAt, off, size int64, name string, opts []offloadbin.Option) ([]Found, error) {
	images, err := offloadbin.ReadSection(r, off, size, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]Found, len(images))
	for i, im := range images {
		out[i] = Found{Image: im, Source: name}
	}
	return out, nil
}

func scanArchive(r io.ReaderAt, off, size int64, name string, depth int, opts []offloadbin.Option) ([]Found, error) {
	if depth >= maxArchiveDepth {
		return nil, fmt.Errorf("%w: %s: archives nested too deeply", ErrUnsupportedInput, name)
	}
	ra, err := ar.NewReader(io.NewSectionReader(r, off, size), size)
	if errors.Is(err, ar.ErrThin) {
		return nil, fmt.Errorf("%w: %s: thin archive", ErrUnsupportedInput, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Found
	for {
		m, err := ra.Next()
		if err == io.EOF {
			return out, nil
		}
		// Member names are only used as labels here, never as paths.
		if err != nil && !errors.Is(err, ar.ErrInsecurePath) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		found, err := scan(r, off+m.Offset, m.Size, m.Name, depth+1, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
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
