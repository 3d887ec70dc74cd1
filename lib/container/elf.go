package container

import (
	"debug/elf"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// ELF walks the sections of an ELF file that carry offload code (a
// Walker): bundle sections (EntrySection, or HostMarker for the one-byte
// section that stands for the object itself), and as Sections
// SHT_LLVM_OFFLOADING, .hip_fatbin, .llvm.offloading* and NVIDIA's fat
// binary sections (.nv_fatbin, __nv_relfatbin: relfatbin.go).
func ELF(r io.ReaderAt, size int64, visit Visit) error {
	f, err := elfobj.Open(r, size)
	if err != nil {
		return err
	}
	return ELFSections(f, visit)
}

// ELFSections is ELF for a file already opened (inspect describes its
// header first).
func ELFSections(f *elfobj.File, visit Visit) error {
	for _, s := range f.Sections {
		if s.Type == uint32(elf.SHT_NOBITS) {
			continue
		}
		p := Piece{Name: s.Name, Offset: int64(s.Offset), Size: int64(s.Size), Data: f.SectionReader(s)}
		switch {
		case strings.HasPrefix(s.Name, bundle.Magic):
			p.Kind = EntrySection
			if isHostMarker(f, s) {
				p.Kind = HostMarker
			}
		case s.Type == elfobj.SHT_LLVM_OFFLOADING, s.Name == ".hip_fatbin", nvFatbinSection(s.Name), strings.HasPrefix(s.Name, ".llvm.offloading"):
			p.Kind = Section
		default:
			continue
		}
		if err := visit(p); err != nil {
			return err
		}
	}
	return nil
}

// isHostMarker reports whether bundle section s is the one zero byte that
// stands for the host entry.
func isHostMarker(f *elfobj.File, s elfobj.Section) bool {
	if s.Size != 1 {
		return false
	}
	var b [1]byte
	n, _ := f.SectionReader(s).ReadAt(b[:], 0)
	return n == 1 && b[0] == 0
}
