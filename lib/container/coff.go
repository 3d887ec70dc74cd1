package container

import (
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/coffobj"
)

// COFF walks a COFF object's .llvm.offloading* sections (a Walker), the
// ones LLVM 22 searches for OffloadBinaries in COFF objects (which have no
// section types); sections with no contents in the file are left out.
func COFF(r io.ReaderAt, size int64, visit Visit) error {
	f, err := coffobj.Open(r, size, "")
	if err != nil {
		return err
	}
	return COFFSections(f, visit)
}

// COFFSections is COFF for an object already opened (inspect describes its
// header first). A section whose contents lie past the end of the file
// stops the walk with coffobj's error.
func COFFSections(f *coffobj.File, visit Visit) error {
	secs, err := f.Sections()
	if err != nil {
		return err
	}
	for _, s := range secs {
		if !strings.HasPrefix(s.Name, ".llvm.offloading") || s.Offset == 0 {
			continue
		}
		sr, err := f.SectionReader(s)
		if err != nil {
			return err
		}
		if err := visit(Piece{Kind: Section, Name: s.Name, Offset: s.Offset, Size: s.Size, Data: sr}); err != nil {
			return err
		}
	}
	return nil
}
