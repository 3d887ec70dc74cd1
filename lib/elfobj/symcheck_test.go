package elfobj

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// A symbol defined in a section past the table (st_shndx 20224 of five
// sections) is refused with llvm-objcopy's words by the edits, which
// renumber st_shndx through the table: AddSections indexed it and
// panicked ("index out of range [20224] with length 5"). The last
// section's index is still accepted.
func TestSymbolSectionPastTable(t *testing.T) {
	for _, c := range []struct {
		shndx uint16
		want  string // "" for success
	}{
		{4, ""},
		{5, "symbol 'main' is defined has invalid section index 5"},
		{20224, "symbol 'main' is defined has invalid section index 20224"},
	} {
		obj := hostile.ELFSymbolInSection(c.shndx)
		r := bytes.NewReader(obj)
		sec := NewSection{Name: ".llvm.offloading", Type: SHT_LLVM_OFFLOADING, Size: 1, Data: strings.NewReader("x")}
		for what, err := range map[string]error{
			"AddSections":    AddSections(&bytes.Buffer{}, r, int64(len(obj)), []NewSection{sec}),
			"RemoveSections": RemoveSections(&bytes.Buffer{}, r, int64(len(obj)), func(Section) bool { return false }),
		} {
			var se *SymbolSectionError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("st_shndx %d: %s: %v", c.shndx, what, err)
			case c.want != "" && (!errors.As(err, &se) || se.Objcopy() != c.want || !errors.Is(err, ErrFormat)):
				t.Errorf("st_shndx %d: %s: %v; want %q", c.shndx, what, err, c.want)
			}
		}
	}
}

// llvm-objcopy-22 refuses the same objects with the same words.
func TestSymbolSectionMatchesObjcopy(t *testing.T) {
	objcopy := llvmtest.Tool(t, "llvm-objcopy-22")
	dir := t.TempDir()
	for _, shndx := range []uint16{5, 20224} {
		in := llvmtest.WriteFile(t, dir, "in.o", hostile.ELFSymbolInSection(shndx))
		r := llvmtest.RunResult(t, dir, nil, objcopy, "--add-section=.x="+in, in, "out.o")
		obj := hostile.ELFSymbolInSection(shndx)
		err := AddSections(&bytes.Buffer{}, bytes.NewReader(obj), int64(len(obj)), []NewSection{{Name: ".x", Type: 1}})
		var se *SymbolSectionError
		_, said, _ := strings.Cut(r.Stderr, ": error: ") // after the tool's path
		if !errors.As(err, &se) || r.Code != 1 || said != se.Objcopy()+"\n" {
			t.Errorf("st_shndx %d: llvm-objcopy-22 %v; AddSections: %v", shndx, r, err)
		}
	}
}
