package packager

import (
	"errors"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// COFF objects carry offload binaries in sections whose names start with
// ".llvm.offloading" (COFF has no section types to mark them); clang
// -fembed-offload-object writes one for Windows targets, and LLVM 22's
// extractOffloadBinaries reads it, section by section: a section's name
// is resolved, and its contents read, only when the loop reaches it.

// coffSectionPrefix starts the names of the sections searched.
const coffSectionPrefix = ".llvm.offloading"

// scanCOFF reads the offload binaries of a COFF object in r[off:off+size].
func scanCOFF(r io.ReaderAt, off, size int64, name string, opts []offloadbin.Option) ([]Found, error) {
	f, err := coffobj.Open(io.NewSectionReader(r, off, size), size, name)
	if err != nil {
		return nil, coffError(err)
	}
	var out []Found
	for i := range f.NumSections {
		s, err := f.Section(i)
		if err != nil {
			return nil, coffError(err)
		}
		if !strings.HasPrefix(s.Name, coffSectionPrefix) || s.Offset == 0 { // not searched, or no contents in the file
			continue
		}
		if _, err := f.SectionReader(s); err != nil {
			return nil, coffError(err)
		}
		found, err := scanBinaries(r, off+s.Offset, s.Size, name, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// coffError gives coffobj's errors the offloadbin error the rest of the
// package goes by: a truncation is offloadbin.ErrTruncated, any other
// defect offloadbin.ErrFormat and carries LLVM's message for it.
func coffError(err error) error {
	var fe *coffobj.FormatError
	switch {
	case !errors.As(err, &fe):
		return err
	case fe.Truncated:
		return &wrapped{err, offloadbin.ErrTruncated, ": " + offloadbin.ErrTruncated.Error()}
	}
	return &worded{wrapped{err, offloadbin.ErrFormat, ""}, fe.Msg}
}

// wrapped is err, also matching kind, its text followed by suffix.
type wrapped struct {
	err, kind error
	suffix    string
}

func (e *wrapped) Error() string   { return e.err.Error() + e.suffix }
func (e *wrapped) Unwrap() []error { return []error{e.err, e.kind} }

// worded is a defect that LLVM reports with a message of its own.
type worded struct {
	wrapped
	msg string
}

func (e *worded) LLVMMessage() string { return e.msg }
