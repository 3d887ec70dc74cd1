package elfobj

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// FuzzOpen checks that Open, AddSections, RemoveSections,
// ArchiveSymbols and DefinedSymbols never panic, and that a section
// AddSections reports as written reads back with its contents.
func FuzzOpen(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.o")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	// Names shared by many headers and symbols, and a symbol in a section
	// past the table (AddSections panicked on it).
	f.Add(hostile.ELFLongNames(12, 40, 3))
	f.Add(hostile.ELFLongSymbols(12, 40, 3))
	f.Add(hostile.ELFSymbolInSection(20224))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		file, err := Open(r, int64(len(b)))
		if err != nil {
			return
		}
		for _, s := range file.Sections {
			io.Copy(io.Discard, file.SectionReader(s))
		}
		file.ArchiveSymbols()
		file.DefinedSymbols(elf.SHT_SYMTAB)
		file.DefinedSymbols(elf.SHT_DYNSYM)
		RemoveSections(io.Discard, r, int64(len(b)), func(s Section) bool { return s.Index%3 == 1 })

		const payload = "fuzz payload"
		sec := NewSection{Name: ".llvm.offloading", Type: SHT_LLVM_OFFLOADING, Flags: SHF_EXCLUDE, Align: 8,
			Size: int64(len(payload)), Data: strings.NewReader(payload)}
		var out bytes.Buffer
		if err := AddSections(&out, r, int64(len(b)), []NewSection{sec}); err != nil {
			return
		}
		g, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("AddSections output does not open: %v", err)
		}
		last := g.Sections[len(g.Sections)-1]
		if last.Name != sec.Name || last.Type != sec.Type || len(g.Sections) != len(file.Sections)+1 {
			t.Fatalf("added section reads back as %+v", last)
		}
		got, _ := io.ReadAll(g.SectionReader(last))
		if string(got) != payload {
			t.Fatalf("payload reads back as %q", got)
		}
		if g.Type == elf.ET_REL && RemoveSections(io.Discard, bytes.NewReader(out.Bytes()), int64(out.Len()),
			func(s Section) bool { return s.Index == last.Index }) != nil {
			// Removal may refuse on odd inputs; it must not panic.
			return
		}
	})
}
