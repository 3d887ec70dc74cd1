package bitcode

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

var handSyms = []testSymbol{
	{"def", "def", FlagGlobal | FlagExecutable},
	{"undef", "undef", FlagGlobal | FlagUndefined},
	{"local", "local", 0},
	{"llvm.used", "llvm.used", FlagGlobal | FlagFormatSpecific},
	{"hidden", "hidden", FlagGlobal | Flags(VisibilityHidden)},
	{"weak", "weak", FlagGlobal | FlagWeak},
	{"asm_sym", "", FlagGlobal | FlagExecutable},
}

// wantHand is handSyms filtered by LLVM's isArchiveSymbol rule.
var wantHand = []string{"def", "hidden", "weak", "asm_sym"}

func readHand(t *testing.T, b []byte) ([]string, error) {
	t.Helper()
	return ArchiveSymbols(bytes.NewReader(b), int64(len(b)))
}

// TestHandStreams reads streams laid out by the bitstream rules, each
// exercising a rule of llvm::getBitcodeFileContents.
func TestHandStreams(t *testing.T) {
	symtab, strtab := buildSymtab(SymtabVersion, 1, handSyms)
	otherSymtab, otherStrtab := buildSymtab(SymtabVersion, 1, handSyms[:1])
	tests := []struct {
		name string
		b    []byte
		want []string
		err  error
	}{
		{"plain", newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"identification then module",
			newStream().enter(identificationBlockID, 5).end().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"identification not followed by module",
			newStream().enter(identificationBlockID, 5).end().blobBlock(symtabBlockID, symtab).done(), nil, ErrFormat},
		{"unknown top-level block skipped",
			newStream().module().enter(30, 4).unabbrev(1, 2, 3).end().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"top-level abbreviations and records",
			newStream().define(op{opLiteral, 7}, op{opFixed, 3}, op{enc: opBlob}).unabbrev(9, 1, 1<<40).module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"string table before symbol table ignored",
			newStream().module().blobBlock(strtabBlockID, otherStrtab).blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"first string table after symbol table wins",
			newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).blobBlock(strtabBlockID, otherStrtab).done(), wantHand, nil},
		{"first symbol table wins",
			newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(symtabBlockID, otherSymtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"empty symbol table blob does not count",
			newStream().module().blobBlock(symtabBlockID, nil).blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"last matching record in block wins",
			newStream().module().enter(symtabBlockID, 3).define(op{opLiteral, 1}, op{enc: opBlob}).define(op{opLiteral, 2}, op{enc: opBlob}).
				blobRecord(firstUserAbbrev, otherSymtab).blobRecord(firstUserAbbrev, symtab).blobRecord(firstUserAbbrev+1, otherSymtab).end().
				blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"fixed code, arrays, nested block and unabbreviated records in block",
			newStream().module().enter(symtabBlockID, 4).unabbrev(1, 5).
				define(op{opFixed, 4}, op{opVBR, 6}, op{opArray, 0}, op{enc: opChar6}).
				bits(firstUserAbbrev, 4).bits(3, 4).vbr(1000, 6).vbr(2, 6).bits(1, 6).bits(2, 6).
				enter(99, 2).unabbrev(1, 1).end().
				define(op{opFixed, 4}, op{enc: opBlob}, op{opLiteral, 5}).
				bits(firstUserAbbrev+1, 4).bits(1, 4).vbr(uint64(len(symtab)), 6).align32().bytes(symtab).align32().
				end().blobBlock(strtabBlockID, strtab).done(), wantHand, nil},
		{"char6 record code is a character, not 1",
			newStream().module().enter(symtabBlockID, 3).define(op{enc: opChar6}, op{enc: opBlob}).
				bits(firstUserAbbrev, 3).bits(1, 6).vbr(uint64(len(symtab)), 6).align32().bytes(symtab).align32().end().
				blobBlock(strtabBlockID, strtab).done(), nil, ErrNoSymtab},
		{"trailing bytes under 8 ignored", append(newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), 0xff, 0xff, 0xff, 0xff), wantHand, nil},
		{"no modules: no symbols", newStream().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), nil, nil},
		{"no symbol table", newStream().module().blobBlock(strtabBlockID, strtab).done(), nil, ErrNoSymtab},
		{"no string table", newStream().module().blobBlock(symtabBlockID, symtab).done(), nil, ErrNoSymtab},
		{"module count mismatch", newStream().module().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(), nil, ErrNoSymtab},
		{"END_BLOCK at top level", append(newStream().module().done(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), nil, ErrFormat},
		{"undefined abbreviation", newStream().module().enter(symtabBlockID, 3).bits(5, 3).end().done(), nil, ErrFormat},
		{"abbreviation starting with a blob", newStream().module().enter(symtabBlockID, 3).define(op{enc: opBlob}).bits(4, 3).end().done(), nil, ErrFormat},
		{"array not second to last", newStream().module().enter(symtabBlockID, 3).define(op{opLiteral, 1}, op{opArray, 0}, op{opFixed, 3}, op{opLiteral, 1}).bits(4, 3).vbr(0, 6).end().done(), nil, ErrFormat},
		{"abbreviation width over 32", newStream().module().enter(symtabBlockID, 3).define(op{opLiteral, 1}, op{opFixed, 33}).end().done(), nil, ErrFormat},
		{"abbreviation without operands", newStream().module().enter(symtabBlockID, 3).define().end().done(), nil, ErrFormat},
		{"invalid operand encoding", newStream().module().enter(symtabBlockID, 3).bits(abbrevDefine, 3).vbr(1, 5).bits(0, 1).bits(7, 3).end().done(), nil, ErrFormat},
		{"block ID width over 32", newStream().module().bits(abbrevEnterSubblock, 2).vbr(symtabBlockID, 8).vbr(33, 4).align32().bits(0, 32).bits(0, 32).done(), nil, ErrFormat},
		{"block ID width 0", newStream().module().bits(abbrevEnterSubblock, 2).vbr(symtabBlockID, 8).vbr(0, 4).align32().bits(0, 32).bits(0, 32).done(), nil, ErrFormat},
		{"block past end", newStream().bits(abbrevEnterSubblock, 2).vbr(moduleBlockID, 8).vbr(3, 4).align32().bits(100, 32).bits(0, 64).done(), nil, ErrFormat},
		{"blob past end", newStream().module().enter(symtabBlockID, 3).define(op{opLiteral, 1}, op{enc: opBlob}).bits(4, 3).vbr(1000, 6).align32().bits(0, 64).done(), nil, ErrFormat},
		{"unterminated VBR", newStream().module().enter(symtabBlockID, 3).bits(abbrevUnabbrev, 3).bits(^uint64(0), 64).bits(^uint64(0), 64).done(), nil, ErrFormat},
		{"stream ends inside block", newStream().module().enter(symtabBlockID, 32).unabbrev(1).done(), nil, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readHand(t, tc.b)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("symbols = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSymtabHeader(t *testing.T) {
	symtab, strtab := buildSymtab(SymtabVersion, 1, handSyms)
	b := newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done()
	st, err := ReadSymtab(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 3 || st.Producer != "22.1.8" || st.TargetTriple != "x86_64-pc-linux-gnu" || st.SourceFileName != "t.c" || st.Modules != 1 {
		t.Errorf("header = %+v", st)
	}
	if len(st.Symbols) != len(handSyms) {
		t.Fatalf("%d symbols, want %d", len(st.Symbols), len(handSyms))
	}
	for i, s := range st.Symbols {
		w := handSyms[i]
		if s.Name != w.name || s.IRName != w.irName || s.Flags != w.flags || s.ComdatIndex != -1 {
			t.Errorf("symbol %d = %+v, want %+v", i, s, w)
		}
	}
	if v := st.Symbols[4].Visibility(); v != VisibilityHidden || v.String() != "hidden" {
		t.Errorf("visibility = %v", v)
	}
}

func TestBadSymtab(t *testing.T) {
	symtab, strtab := buildSymtab(SymtabVersion, 1, handSyms)
	mk := func(edit func(s []byte) []byte) []byte {
		s := edit(slices.Clone(symtab))
		return newStream().module().blobBlock(symtabBlockID, s).blobBlock(strtabBlockID, strtab).done()
	}
	put := func(at int, v uint32) func([]byte) []byte {
		return func(s []byte) []byte {
			s[at], s[at+1], s[at+2], s[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			return s
		}
	}
	tests := []struct {
		name string
		b    []byte
		err  error
	}{
		{"version 2", mk(put(hdrVersion, 2)), ErrNoSymtab},
		{"version 5", mk(put(hdrVersion, 5)), ErrNoSymtab},
		{"short header", mk(func(s []byte) []byte { return s[:headerSize-1] }), ErrNoSymtab},
		{"symbols past end", mk(put(hdrSymbols+4, 1<<30)), ErrFormat},
		{"symbol offset past end", mk(put(hdrSymbols, 1<<31)), ErrFormat},
		{"name past string table", mk(put(headerSize+12+symName, 1<<20)), ErrFormat},
		{"name size overflow", mk(put(headerSize+12+symName+4, 0xffffffff)), ErrFormat},
		{"producer past string table", mk(put(hdrProducer, 0xffffff00)), ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := readHand(t, tc.b); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestContainer(t *testing.T) {
	symtab, strtab := buildSymtab(SymtabVersion, 1, handSyms)
	raw := newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done()
	wrap := func(off, size uint32, body []byte, pad int) []byte {
		h := []byte(WrapperMagic + "\x00\x00\x00\x00")
		h = append(h, byte(off), byte(off>>8), byte(off>>16), byte(off>>24), byte(size), byte(size>>8), byte(size>>16), byte(size>>24))
		h = append(h, make([]byte, int(off)-len(h))...)
		return append(append(h, body...), make([]byte, pad)...)
	}
	tests := []struct {
		name string
		b    []byte
		want []string
		err  error
	}{
		{"wrapper", wrap(20, uint32(len(raw)), raw, 0), wantHand, nil},
		{"wrapper with trailer", wrap(24, uint32(len(raw)), raw, 12), wantHand, nil},
		{"wrapper past end", wrap(20, uint32(len(raw))+4, raw, 0), nil, ErrFormat},
		{"wrapper size not a multiple of 4", wrap(20, uint32(len(raw))-2, raw, 0), nil, ErrFormat},
		{"short wrapper", []byte(WrapperMagic + "\x00\x00\x00\x00\x00\x00\x00\x00"), nil, ErrFormat},
		{"wrapped non-bitcode", wrap(20, 8, []byte("BCxxxxxx"), 0), nil, ErrFormat},
		{"size not a multiple of 4", append(slices.Clone(raw), 0), nil, ErrFormat},
		{"magic only", []byte(RawMagic), nil, nil},
		{"not bitcode", []byte("\x7fELF...."), nil, ErrNotBitcode},
		{"empty", nil, nil, ErrNotBitcode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readHand(t, tc.b)
			if tc.err != nil || err != nil {
				if !errors.Is(err, tc.err) || tc.err == nil {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("symbols = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := ArchiveSymbols(bytes.NewReader(raw), -1); !errors.Is(err, ErrNotBitcode) {
		t.Errorf("negative size: %v", err)
	}
}

// LLVM 23 writes irsymtab version 4, whose header and symbols are laid out
// as version 3's (only Uncommon's CommonSize grew to 64 bits, which this
// package does not read): the same table under version 4 gives the same
// archive symbols. clang-23's own bitcode is read in tests/bundler
// (TestLLVM23IrsymtabVersion4, with LLVM 23's bundler as oracle).
func TestSymtabVersion4(t *testing.T) {
	symtab, strtab := buildSymtab(4, 1, handSyms)
	got, err := readHand(t, newStream().module().blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done())
	if err != nil || !slices.Equal(got, wantHand) {
		t.Fatalf("version 4: %q, %v; want %q", got, err, wantHand)
	}
}
