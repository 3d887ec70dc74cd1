package wrapper

import (
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// maxPackageImages bounds how many OffloadBinaries one input may hold, so
// that a hostile package cannot make the plan grow without limit.
const maxPackageImages = 4096

// splitPackages replaces every input that is a package of OffloadBinaries
// (what llvm-offload-binary writes: binaries back to back, each at a
// multiple of offloadbin.Alignment) by one image per binary, each exactly
// that binary's bytes. Other inputs pass unchanged. A package of one binary
// keeps its Path (the C and assembly forms may .incbin it); the parts of a
// larger one are written inline.
func splitPackages(imgs []Image) ([]Image, error) {
	var out []Image
	for i, im := range imgs {
		if im.Data == nil || im.Size <= 0 {
			out = append(out, im)
			continue
		}
		head := make([]byte, min(im.Size, 8))
		if _, err := im.Data.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, &ImageError{Index: i, Path: im.Path, Msg: err.Error(), Err: err}
		}
		if sniff(head) != fmtOffloadBinary {
			out = append(out, im)
			continue
		}
		parts, err := packageParts(im)
		if err != nil {
			return nil, &ImageError{Index: i, Path: im.Path, Msg: err.Error(), Err: err}
		}
		if len(parts) == 1 && parts[0] == (span{0, im.Size}) {
			out = append(out, im)
			continue
		}
		for _, sp := range parts {
			out = append(out, Image{Data: io.NewSectionReader(im.Data, sp.begin, sp.end-sp.begin), Size: sp.end - sp.begin, Arch: im.Arch})
		}
	}
	return out, nil
}

// packageParts locates the OffloadBinaries of a package: each from its
// header to the end of its Size, padding between them left out.
func packageParts(im Image) ([]span, error) {
	var parts []span
	buf := make([]byte, 4096) // zeroTail's, one for the whole package
	for pos := int64(0); pos < im.Size; {
		if len(parts) == maxPackageImages {
			return nil, fmt.Errorf("more than %d OffloadBinaries in one package", maxPackageImages)
		}
		if pos > 0 {
			// Zero padding after the last binary ends the package.
			if zero, err := zeroTail(im.Data, buf, pos, im.Size); err != nil || zero {
				return parts, err
			}
		}
		_, n, err := offloadbin.Read(im.Data, pos, im.Size, offloadbin.RefuseCompressed())
		if err != nil {
			return nil, err
		}
		if n <= 0 || n > im.Size-pos {
			return nil, fmt.Errorf("OffloadBinary at %#x: size %#x outside the input", pos, n)
		}
		parts = append(parts, span{pos, pos + n})
		pos += (n + offloadbin.Alignment - 1) / offloadbin.Alignment * offloadbin.Alignment
	}
	return parts, nil
}

// zeroTail reports whether r holds only zero bytes from off to end,
// reading through buf.
func zeroTail(r io.ReaderAt, buf []byte, off, end int64) (bool, error) {
	for off < end {
		n := int(min(int64(len(buf)), end-off))
		if _, err := r.ReadAt(buf[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		for _, b := range buf[:n] {
			if b != 0 {
				return false, nil
			}
		}
		off += int64(n)
	}
	return true, nil
}
