package elfobj

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"testing"
)

// slowSymbols is the reference: Open followed by ArchiveSymbols.
func slowSymbols(b []byte) ([]string, error) {
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return f.ArchiveSymbols()
}

// checkAgrees fails unless ArchiveSymbolsAt and ArchiveSymbolsBytes succeed
// exactly when the reference does, with the same names.
func checkAgrees(t testing.TB, what string, b []byte) {
	t.Helper()
	want, werr := slowSymbols(b)
	got, gerr := ArchiveSymbolsAt(bytes.NewReader(b), int64(len(b)))
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: ArchiveSymbolsAt error %v, Open+ArchiveSymbols error %v", what, gerr, werr)
	}
	if werr == nil && !slices.Equal(got, want) {
		t.Fatalf("%s: ArchiveSymbolsAt %q, Open+ArchiveSymbols %q", what, got, want)
	}
	got, gerr = ArchiveSymbolsBytes(b)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: ArchiveSymbolsBytes error %v, Open+ArchiveSymbols error %v", what, gerr, werr)
	}
	if werr == nil && !slices.Equal(got, want) {
		t.Fatalf("%s: ArchiveSymbolsBytes %q, Open+ArchiveSymbols %q", what, got, want)
	}
}

// corruptions yields b with single header fields damaged: every byte of the
// ELF header, of each section header and of the first symbols, set to a few
// values, and every truncation at a header boundary.
func corruptions(b []byte, fn func(what string, c []byte)) {
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return
	}
	var offs []int
	for i := 0; i < f.c.ehdrSize(); i++ {
		offs = append(offs, i)
	}
	es := f.c.shdrSize()
	for i := range f.Sections {
		for k := 0; k < es; k++ {
			offs = append(offs, int(f.shoff)+i*es+k)
		}
	}
	if syms := f.SectionsByType(2); len(syms) > 0 {
		for k := 0; k < 4*f.c.symSize() && k < int(syms[0].Size); k++ {
			offs = append(offs, int(syms[0].Offset)+k)
		}
	}
	for _, o := range offs {
		if o >= len(b) {
			continue
		}
		for _, v := range []byte{0, 1, 0x7f, 0xff} {
			c := bytes.Clone(b)
			c[o] = v
			fn("byte "+itoa(o), c)
		}
	}
	for _, n := range []int{0, 3, 4, 15, 16, 40, 52, 63, 64, int(f.shoff), int(f.shoff) + es, len(b) - 1} {
		if n >= 0 && n <= len(b) {
			fn("truncated to "+itoa(n), b[:n])
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestArchiveSymbolsAtFixtures compares the lean path with Open and
// ArchiveSymbols on the recorded fixtures and damaged copies of them.
func TestArchiveSymbolsAtFixtures(t *testing.T) {
	for _, name := range seedNames(t) {
		b := readSeed(t, name)
		checkAgrees(t, name, b)
		corruptions(b, func(what string, c []byte) { checkAgrees(t, name+" "+what, c) })
	}
}

// TestArchiveSymbolsAtObjects does the same on objects clang and gcc build
// now (32/64-bit, both byte orders, C++ with COMDAT groups).
func TestArchiveSymbolsAtObjects(t *testing.T) {
	for _, o := range objects(t) {
		b, err := os.ReadFile(o.path)
		if err != nil {
			t.Fatal(err)
		}
		checkAgrees(t, o.name, b)
		if syms, _ := ArchiveSymbolsAt(bytes.NewReader(b), int64(len(b))); len(syms) == 0 {
			t.Errorf("%s: no symbols; the comparison proves little", o.name)
		}
	}
}

// FuzzArchiveSymbolsAt checks that the lean path agrees with Open and
// ArchiveSymbols on any input.
func FuzzArchiveSymbolsAt(f *testing.F) {
	for _, name := range seedNames(f) {
		f.Add(readSeed(f, name))
	}
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, b []byte) { checkAgrees(t, "input", b) })
}
