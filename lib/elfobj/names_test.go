package elfobj

import (
	"bytes"
	"debug/elf"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// scanName is the string at off as a reader that scans from each offset
// finds it, under stringsAt's rules, or ok false where stringsAt must fail.
func scanName(tab []byte, off uint32) (string, bool) {
	o := int(off)
	if o >= len(tab) {
		return "", o == 0
	}
	rest := tab[o:min(len(tab), o+maxName)]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		return string(rest[:i]), true
	}
	return "", false
}

// stringsAt finds what a scan from each offset finds, in any order of
// offsets, repeated or not, names in names and tails of names, over tables
// of short and of long strings, read through a ReaderAt or in place; and
// it fails exactly where the scan does (offsets past the table, strings
// that run off its end or past maxName).
func TestStringsAtMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 40))
	for _, c := range []struct {
		size, density int // NUL about once per density bytes
		terminated    bool
	}{
		{0, 1, true}, {1, 1, true}, {300, 4, true}, {5000, 700, true}, {5000, 700, false},
		{200 << 10, 50 << 10, true}, {maxName + 3<<10, maxName, true}, {3 * maxName, 4 * maxName, true},
	} {
		tab := make([]byte, c.size)
		for i := range tab {
			if tab[i] = 'a' + byte(i%26); rng.IntN(c.density) == 0 {
				tab[i] = 0
			}
		}
		if c.terminated && c.size > 0 {
			tab[c.size-1] = 0
		}
		if c.size > 2*maxName {
			tab[maxName] = 0 // one name of exactly maxName bytes: too long
		}
		const prefix = 13 // the table does not start the file
		file := append(bytes.Repeat([]byte{0xee}, prefix), tab...)
		for _, inPlace := range []bool{false, true} {
			for trial := range 20 {
				offs := make([]uint32, 1+rng.IntN(60))
				for i := range offs {
					switch rng.IntN(4) {
					case 0:
						offs[i] = offs[rng.IntN(i+1)] // a repeat
					case 1:
						offs[i] = uint32(rng.IntN(c.size + 2)) // maybe past the end
					default:
						offs[i] = uint32(rng.IntN(max(c.size, 1)))
					}
				}
				f := &File{r: bytes.NewReader(file), size: int64(len(file))}
				if inPlace {
					f.mem = file
				}
				got, err := f.stringsAt(Section{Offset: prefix, Size: uint64(c.size)}, offs)
				fails := false
				for i, o := range offs {
					want, ok := scanName(tab, o)
					fails = fails || !ok
					if err == nil && ok && got[i] != want {
						t.Fatalf("table of %d, trial %d: offset %d reads %d bytes, want %d", c.size, trial, o, len(got[i]), len(want))
					}
				}
				if fails != (err != nil) || err != nil && !errors.Is(err, ErrFormat) {
					t.Fatalf("table of %d, trial %d, offsets %v: error %v, want one: %v", c.size, trial, offs, err, fails)
				}
			}
		}
	}
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Section and symbol names that all name one long string, or tails of it,
// share the bytes of the table rather than each taking a copy: 2,000 names
// of about 100 KB cost about 200 MB as copies, and stay under 4 MiB here
// (the review's 992 KB object, 8,000 section names into a 480,000-byte
// string, took 3.8 GB). Every reader of names is checked: Open (section
// names), DefinedSymbols, ArchiveSymbols and the lean ArchiveSymbolsAt
// and ArchiveSymbolsBytes.
func TestLongNamesShared(t *testing.T) {
	const n, nameLen = 2000, 100000
	for _, stride := range []int{0, 7} {
		long := strings.Repeat("A", nameLen)
		want := func(i int) string { return long[(i*stride)%nameLen:] }
		sec := hostile.ELFLongNames(n, nameLen, stride)
		var f *File
		var err error
		if a := allocated(func() { f, err = Open(bytes.NewReader(sec), int64(len(sec))) }); err != nil || a > 4<<20 {
			t.Fatalf("stride %d: Open: %v, %d MiB allocated", stride, err, a>>20)
		}
		for i, s := range f.Sections[2:] {
			if s.Name != want(i+2) {
				t.Fatalf("stride %d: section %d named %d bytes, want %d", stride, i+2, len(s.Name), len(want(i+2)))
			}
		}

		syms := hostile.ELFLongSymbols(n, nameLen, stride)
		if f, err = Open(bytes.NewReader(syms), int64(len(syms))); err != nil {
			t.Fatal(err)
		}
		check := func(what string, names []string, err error, a uint64) {
			t.Helper()
			if err != nil || len(names) != n || a > 4<<20 {
				t.Fatalf("stride %d: %s: %v, %d names, %d MiB allocated", stride, what, err, len(names), a>>20)
			}
			for i, name := range names {
				if name != want(i) {
					t.Fatalf("stride %d: %s: symbol %d named %d bytes, want %d", stride, what, i, len(name), len(want(i)))
				}
			}
		}
		var names []string
		var defined []Symbol
		a := allocated(func() { defined, err = f.DefinedSymbols(elf.SHT_SYMTAB) })
		names = nil
		for _, s := range defined {
			names = append(names, s.Name)
		}
		check("DefinedSymbols", names, err, a)
		a = allocated(func() { names, err = f.ArchiveSymbols() })
		check("ArchiveSymbols", names, err, a)
		a = allocated(func() { names, err = ArchiveSymbolsAt(bytes.NewReader(syms), int64(len(syms))) })
		check("ArchiveSymbolsAt", names, err, a)
		a = allocated(func() { names, err = ArchiveSymbolsBytes(syms) })
		check("ArchiveSymbolsBytes", names, err, a)
	}
}
