package bitcode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzReadSymtab checks that ReadSymtab and ArchiveSymbols never panic,
// fail only with this package's errors, and agree with each other.
func FuzzReadSymtab(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.bc")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	symtab, strtab := buildSymtab(SymtabVersion, 1, handSyms)
	f.Add(newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done())
	f.Add(wrapStream(newStream().enter(identificationBlockID, 5).end().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done()))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ReadSymtab(bytes.NewReader(b), int64(len(b)))
		names, aerr := ArchiveSymbols(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if !errors.Is(err, ErrNotBitcode) && !errors.Is(err, ErrNoSymtab) && !errors.Is(err, ErrFormat) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if aerr != nil {
			t.Fatalf("ReadSymtab succeeded, ArchiveSymbols failed: %v", aerr)
		}
		if len(st.Symbols)*symbolSize > len(b) {
			t.Fatalf("%d symbols from %d bytes", len(st.Symbols), len(b))
		}
		var want []string
		for _, s := range st.Symbols {
			if s.InArchiveIndex() {
				want = append(want, s.Name)
			}
		}
		if !slices.Equal(names, want) {
			t.Fatalf("ArchiveSymbols %q, symbols say %q", names, want)
		}
	})
}
