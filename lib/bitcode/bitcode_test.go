package bitcode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtures returns testdata/*.bc; gen.sh made them and recorded LLVM's
// view of each beside it.
func fixtures(t testing.TB) []string {
	t.Helper()
	fs, err := filepath.Glob("testdata/*.bc")
	if err != nil || len(fs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return fs
}

// noSymtabFixtures are files whose table LLVM rebuilds from the IR.
var noSymtabFixtures = map[string]bool{"llvmcat22-two-modules-no-symtab.bc": true}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })
}

// TestFixtureArchiveMaps compares ArchiveSymbols with the archive map
// llvm-ar-22 wrote for each fixture (testdata/*.armap).
func TestFixtureArchiveMaps(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ArchiveSymbols(bytes.NewReader(b), int64(len(b)))
			if noSymtabFixtures[filepath.Base(f)] {
				if !errors.Is(err, ErrNoSymtab) {
					t.Fatalf("err = %v, want ErrNoSymtab", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := readLines(t, strings.TrimSuffix(f, ".bc")+".armap")
			if !slices.Equal(got, want) {
				t.Errorf("archive symbols:\n got %q\nwant %q (llvm-ar-22)", got, want)
			}
		})
	}
}

// ltoSymbol is one symbol line of `llvm-lto2 dump-symtab`.
type ltoSymbol struct{ flags, name string }

// parseDumpSymtab returns the header fields and symbol lines of
// `llvm-lto2 dump-symtab` output for one file.
func parseDumpSymtab(out string) (hdr map[string]string, syms []ltoSymbol) {
	hdr = map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, " ") {
			hdr[k] = v
			continue
		}
		if len(line) > 9 && strings.ContainsRune("DHP", rune(line[0])) && line[8] == ' ' {
			syms = append(syms, ltoSymbol{line[:8], line[9:]})
		}
	}
	return hdr, syms
}

// ltoFlags renders s as dump-symtab does.
func ltoFlags(s Symbol) string {
	f := []byte{"DHP"[s.Visibility()%3]}
	for _, b := range []struct {
		c byte
		f Flags
	}{{'U', FlagUndefined}, {'C', FlagCommon}, {'W', FlagWeak}, {'I', FlagIndirect}, {'O', FlagMayOmit}, {'T', FlagTLS}, {'X', FlagExecutable}} {
		if s.Flags&b.f != 0 {
			f = append(f, b.c)
		} else {
			f = append(f, '-')
		}
	}
	return string(f)
}

// compareDump checks st against dump-symtab output, which lists the
// symbols LTO keeps: global and not format-specific.
func compareDump(t *testing.T, st *Symtab, out string) {
	t.Helper()
	hdr, want := parseDumpSymtab(out)
	if hdr["version"] != "3" || hdr["producer"] != st.Producer || hdr["target triple"] != st.TargetTriple || hdr["source filename"] != st.SourceFileName {
		t.Errorf("header %+v, dump-symtab says %q", st, hdr)
	}
	var got []ltoSymbol
	for _, s := range st.Symbols {
		if s.Flags&FlagGlobal != 0 && s.Flags&FlagFormatSpecific == 0 {
			got = append(got, ltoSymbol{ltoFlags(s), s.Name})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("symbols:\n got %q\nwant %q (llvm-lto2-22 dump-symtab)", got, want)
	}
}

// TestFixtureFlags compares every decoded flag with `llvm-lto2-22
// dump-symtab` as recorded in testdata/*.symtab. For the clang 16 file,
// LLVM 22 rebuilt the table from the IR, so the match also shows that a
// table from another producer lists what LLVM 22 would.
func TestFixtureFlags(t *testing.T) {
	for _, f := range fixtures(t) {
		if noSymtabFixtures[filepath.Base(f)] {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			st, err := ReadSymtab(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			dump, err := os.ReadFile(strings.TrimSuffix(f, ".bc") + ".symtab")
			if err != nil {
				t.Fatal(err)
			}
			compareDump(t, st, string(dump))
		})
	}
}

// TestFixtureDetails pins facts the LLVM outputs above do not show.
func TestFixtureDetails(t *testing.T) {
	read := func(name string) *Symtab {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		st, err := ReadSymtab(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := read("clang22-x86_64-thinlto-cfi-two-modules.bc"); st.Modules != 2 {
		t.Errorf("cfi file: %d modules, want 2", st.Modules)
	}
	st := read("clang22-x86_64-flto-module-asm.bc")
	var asm []string
	for _, s := range st.Symbols {
		if s.IRName == "" {
			asm = append(asm, s.Name)
		}
	}
	// Module asm symbols have no IR name; asm_local is not global.
	if want := []string{"asm_local", "asm_global", "asm_undef_ref", "asm_weak"}; !slices.Equal(asm, want) {
		t.Errorf("asm symbols %q, want %q", asm, want)
	}
	st = read("clang22-x86_64-darwin-wrapper.bc")
	if s := st.Symbols[0]; s.Name != "_dev_fn" || s.IRName != "dev_fn" {
		t.Errorf("Mach-O mangling: %+v", s)
	}
}

// TestTruncation cuts every fixture at every length: always an error,
// never a panic or a partial answer.
func TestTruncation(t *testing.T) {
	for _, f := range fixtures(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		end := len(b)
		if bytes.HasPrefix(b, []byte(WrapperMagic)) {
			// A trailer may follow the wrapped stream.
			end = int(binary.LittleEndian.Uint32(b[8:]) + binary.LittleEndian.Uint32(b[12:]))
		}
		for n := range end {
			if _, err := ArchiveSymbols(bytes.NewReader(b[:n]), int64(n)); err == nil && n > 0 && !isMagicOnly(b[:n]) {
				t.Errorf("%s cut to %d bytes: no error", f, n)
			}
		}
	}
}

// isMagicOnly reports inputs too short to hold a module, which LLVM reads
// as bitcode without modules (and so without symbols).
func isMagicOnly(b []byte) bool {
	if len(b)%4 != 0 || !bytes.HasPrefix(b, []byte(RawMagic)) {
		return false
	}
	return len(b) <= 12
}

// shortReader claims more data than it has.
type shortReader struct{ b []byte }

func (r shortReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestShortReader(t *testing.T) {
	b, err := os.ReadFile("testdata/clang22-x86_64-flto-symkinds.bc")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{40, len(b) / 2, len(b) - 8} {
		_, err := ArchiveSymbols(shortReader{b[:n]}, int64(len(b)))
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reader cut to %d: err = %v, want io.ErrUnexpectedEOF", n, err)
		}
	}
}

func TestIsBitcode(t *testing.T) {
	for _, tc := range []struct {
		b    string
		want bool
	}{
		{"BC\xC0\xDE", true},
		{"BC\xC0\xDE\x35\x14", true},
		{"\xDE\xC0\x17\x0B\x00", true},
		{"BC\xC0", false},
		{"\x0B\x17\xC0\xDE", false},
		{"\x7fELF", false},
		{"", false},
	} {
		if got := IsBitcode([]byte(tc.b)); got != tc.want {
			t.Errorf("IsBitcode(%q) = %v", tc.b, got)
		}
	}
}
