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
// header first). As in LLVM 22's extractOffloadBinaries, a section's name
// is resolved, and its contents checked, only when the walk reaches it:
// a name that cannot be resolved, or contents past the end of the file,
// stop the walk with coffobj's error after the sections before it were
// visited.
func COFFSections(f *coffobj.File, visit Visit) error {
	for i := range f.NumSections {
		s, err := f.Section(i)
		if err != nil {
			return err
		}
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
