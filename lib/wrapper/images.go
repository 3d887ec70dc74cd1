package wrapper

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// format is what an image's first bytes say it is.
type format int

const (
	fmtUnknown format = iota
	fmtOffloadBinary
	fmtELF
	fmtBitcode
	fmtSPIRV
	fmtFatbin
	fmtBundle
	fmtCCOB
)

var formatNames = map[format]string{
	fmtUnknown:       "unrecognised data",
	fmtOffloadBinary: "an OffloadBinary",
	fmtELF:           "an ELF file",
	fmtBitcode:       "LLVM bitcode",
	fmtSPIRV:         "a SPIR-V module",
	fmtFatbin:        "a CUDA fatbinary",
	fmtBundle:        "a clang offload bundle",
	fmtCCOB:          "a compressed offload bundle",
}

// sniff identifies b, the first bytes of an image.
func sniff(b []byte) format {
	switch {
	case bytes.HasPrefix(b, []byte(offloadbin.Magic)):
		return fmtOffloadBinary
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return fmtELF
	case bytes.HasPrefix(b, []byte("BC\xc0\xde")), bytes.HasPrefix(b, []byte("\xde\xc0\x17\x0b")):
		return fmtBitcode
	case bytes.HasPrefix(b, []byte("\x03\x02\x23\x07")):
		return fmtSPIRV
	case bytes.HasPrefix(b, []byte("\x50\xed\x55\xba")):
		return fmtFatbin
	case bytes.HasPrefix(b, []byte("__CLANG_OFFLOAD_BUNDLE__")):
		return fmtBundle
	case bytes.HasPrefix(b, []byte("CCOB")):
		return fmtCCOB
	}
	return fmtUnknown
}

// accepted lists the formats each kind registers, and how to say so.
var accepted = map[Kind]struct {
	formats []format
	want    string
}{
	OpenMP: {[]format{fmtOffloadBinary, fmtELF, fmtBitcode, fmtSPIRV}, "an OpenMP device image (OffloadBinary, ELF, LLVM bitcode or SPIR-V)"},
	CUDA:   {[]format{fmtFatbin}, "a CUDA fatbinary (magic 0xba55ed50)"},
	HIP:    {[]format{fmtBundle, fmtCCOB}, "a HIP offload bundle (__CLANG_OFFLOAD_BUNDLE__ or CCOB)"},
}

// span is where the registered image lies inside an input: an OffloadBinary
// is embedded whole but registered by the image it holds.
type span struct{ begin, end int64 }

// inspect checks image i against the kind and locates the registered bytes.
// With anyImage, bytes that are not of the kind's format are registered
// whole, as LLVM's wrapper registers any file.
func inspect(i int, im Image, k Kind, anyImage bool) (span, error) {
	fail := func(err error, format string, a ...any) (span, error) {
		return span{}, &ImageError{Index: i, Path: im.Path, Msg: fmt.Sprintf(format, a...), Err: err}
	}
	if im.Data == nil || im.Size <= 0 {
		if anyImage && im.Data != nil && im.Size == 0 {
			return span{}, nil
		}
		return fail(ErrEmptyImage, "empty image")
	}
	head := make([]byte, min(im.Size, 32))
	if _, err := im.Data.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return fail(err, "%v", err)
	}
	// Reading the last byte now makes a short reader fail before any output.
	var last [1]byte
	if n, err := im.Data.ReadAt(last[:], im.Size-1); n != 1 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fail(err, "cannot read %d bytes: %v", im.Size, err)
	}
	f := sniff(head)
	ok := false
	for _, a := range accepted[k].formats {
		ok = ok || a == f
	}
	if !ok && !anyImage {
		return fail(ErrWrongImage, "%s is not %s", formatNames[f], accepted[k].want)
	}
	if !ok || f != fmtOffloadBinary {
		return span{0, im.Size}, nil
	}
	// A compressed binary is refused from its header: inflating it (up to
	// the default budget) only to refuse it would cost what it declares.
	bins, _, err := offloadbin.Read(im.Data, 0, im.Size, offloadbin.RefuseCompressed())
	if err != nil && !errors.Is(err, offloadbin.ErrCompressed) {
		return fail(err, "%v", err)
	}
	if len(bins) == 0 {
		return fail(ErrWrongImage, "OffloadBinary without an uncompressed first image")
	}
	b := bins[0]
	if b.Size == 0 {
		return fail(ErrEmptyImage, "OffloadBinary holds an empty image")
	}
	if b.Offset < 0 || b.Size < 0 || b.Offset > im.Size || b.Size > im.Size-b.Offset {
		return fail(offloadbin.ErrTruncated, "image at %#x size %#x lies outside the OffloadBinary", b.Offset, b.Size)
	}
	return span{b.Offset, b.Offset + b.Size}, nil
}
