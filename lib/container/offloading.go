package container

import (
	"io"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// ELFOffloading walks the sections of an ELF file whose type is
// SHT_LLVM_OFFLOADING, whatever their names, as Section pieces (a
// Walker): where LLVM 22's extractOffloadBinaries, and so the packager,
// looks for OffloadBinaries in ELF files. ELF, for inspect and extract,
// also looks inside bundle and fat-binary sections, and goes by name.
func ELFOffloading(r io.ReaderAt, size int64, visit Visit) error {
	f, err := elfobj.Open(r, size)
	if err != nil {
		return err
	}
	for _, s := range f.SectionsByType(elfobj.SHT_LLVM_OFFLOADING) {
		if err := visit(Piece{Kind: Section, Name: s.Name, Offset: int64(s.Offset), Size: int64(s.Size), Data: f.SectionReader(s)}); err != nil {
			return err
		}
	}
	return nil
}
