package elfobj

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// BenchmarkArchiveSymbols lists the archive symbols of a small object, as
// unbundling a device archive does for every device object it writes.
func BenchmarkArchiveSymbols(b *testing.B) {
	obj, err := os.ReadFile("testdata/clang22-x86_64-tiny.o")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(obj)))
	b.ReportAllocs()
	for b.Loop() {
		syms, err := ArchiveSymbolsBytes(obj)
		if err != nil || len(syms) == 0 {
			b.Fatalf("%v, %d symbols", err, len(syms))
		}
	}
}

// BenchmarkAddRemoveSections bundles 64 MiB into an object as one section
// and strips it again (the -type=o paths); allocations must not depend on
// the section's size.
func BenchmarkAddRemoveSections(b *testing.B) {
	obj, err := os.ReadFile("testdata/clang22-x86_64-tiny.o")
	if err != nil {
		b.Fatal(err)
	}
	const size = 64 << 20
	payload := make([]byte, size)
	var fat bytes.Buffer
	fat.Grow(size + len(obj) + 1<<16)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		fat.Reset()
		sec := NewSection{Name: "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906", Type: 1, Align: 1, Size: size, Data: bytes.NewReader(payload)}
		if err := AddSections(&fat, bytes.NewReader(obj), int64(len(obj)), []NewSection{sec}); err != nil {
			b.Fatal(err)
		}
		drop := func(s Section) bool { return strings.HasPrefix(s.Name, "__CLANG_OFFLOAD_BUNDLE__") }
		if err := RemoveSections(io.Discard, bytes.NewReader(fat.Bytes()), int64(fat.Len()), drop); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddSectionsLongSymbolNames bundles into an object whose 8,000
// symbols name different tails of one 480,000-byte string: laying the
// names out again must cost the string table's size, not the names'
// (3 s when the tails were sorted by their bytes).
func BenchmarkAddSectionsLongSymbolNames(b *testing.B) {
	obj := hostile.ELFLongSymbols(8000, 480000, 7)
	sec := func() []NewSection {
		return []NewSection{{Name: "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906", Type: 1, Align: 1, Size: 1, Data: strings.NewReader("x")}}
	}
	b.SetBytes(int64(len(obj)))
	b.ReportAllocs()
	for b.Loop() {
		if err := AddSections(io.Discard, bytes.NewReader(obj), int64(len(obj)), sec()); err != nil {
			b.Fatal(err)
		}
	}
}
