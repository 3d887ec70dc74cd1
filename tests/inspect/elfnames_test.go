package inspect_test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/regcheck"
)

// The robustness tests of names that many headers share: ELF section and
// symbol names and ar long names, all of one long string, within the caps
// (256 MiB, 2 s) of every command that reads them. Each named a copy per
// reference before.

// ELF objects whose 8,000 section names (the review's 992 KB object) all
// name one 480,000-byte string, or tails of it, took 3.8 GB (21 s in
// inspect); a 38,826-byte CCOB of an ELF of 200,000 sections (extended
// numbering) naming one 1,000,000-byte string asked 200 GB. Each command
// that opens an ELF file is run: listing bundles, extract's listing,
// inspect, llvm-offload-binary's extraction and regcheck's host.
func TestELFLongSectionNamesBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "names.o"), hostile.ELFLongNames(8000, 480000, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "tails.o"), hostile.ELFLongNames(8000, 480000, 7), 0o644)
	os.WriteFile(filepath.Join(dir, "names.ccob"), hostile.CCOBZlib(hostile.ELFLongNames(200000, 1000000, 0)), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.rec"), []byte(regcheck.Magic+"\nend 0\n"), 0o644)
	type run struct {
		argv []string
		code int
		want string
	}
	var runs []run
	for _, in := range []string{"names.o", "tails.o", "names.ccob"} {
		runs = append(runs,
			run{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=" + in}, 0, ""},
			run{[]string{"offload", "extract", "--list", in}, 1, "no device image matches the selection in " + in},
			run{[]string{"offload", "inspect", in}, 0, "elf (ELF64 relocatable, X86_64)"})
		if strings.HasSuffix(in, ".o") { // these two read ELF files, not CCOBs
			runs = append(runs,
				run{[]string{"llvm-offload-binary", in, "--image=kind=hip"}, 0, ""},
				run{[]string{"offload", "regcheck", "--host=" + in, "empty.rec"}, 1, "FAILED: 1 problem(s) in empty.rec"})
		}
	}
	for _, c := range runs {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) || c.want == "" && r.Output != "" {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
}

// Symbols named alike: 8,000 global functions named by tails of one
// 480,000-byte string (672 KB). regcheck --host lists the host's symbols
// (3.8 GB before); bundling the object as a host copies its symbol table
// with the names laid out again (3.8 GB before, as llvm-objcopy-22 takes;
// then 3 s of CPU sorting the tails, 317 s in clang-offload-bundler-22).
func TestELFLongSymbolNamesBounded(t *testing.T) {
	dir := t.TempDir()
	for name, stride := range map[string]int{"syms.o": 0, "tails.o": 7} {
		os.WriteFile(filepath.Join(dir, name), hostile.ELFLongSymbols(8000, 480000, stride), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "empty.rec"), []byte(regcheck.Magic+"\nend 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dev.bin"), []byte("device"), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "regcheck", "--host=syms.o", "empty.rec"}, 1, "FAILED: 1 problem(s) in empty.rec"},
		{[]string{"offload", "regcheck", "--host=tails.o", "empty.rec"}, 1, "FAILED: 1 problem(s) in empty.rec"},
		{[]string{"clang-offload-bundler", "-type=o", "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906",
			"-input=syms.o", "-input=dev.bin", "-output=fat.o"}, 0, ""},
		// Different tails: laying the names out again sorted them by
		// comparing their bytes, 3 s of CPU (13 s on a loaded machine).
		{[]string{"clang-offload-bundler", "-type=o", "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906",
			"-input=tails.o", "-input=dev.bin", "-output=fat-tails.o"}, 0, ""},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
}

// A GNU archive (the review's 520 KB one took 3.1 GB in inspect) of 4,000
// empty members all named "/0", or tails of that entry, into a long-name
// table of one 280,000-byte name: 2.3 GB and 7 s in inspect before, 3.5 s
// in extract --list. inspect's listing shows each name cut to 4 KiB.
func TestArLongNamesBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "names.a"), hostile.ArLongNames(4000, 280000, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "tails.a"), hostile.ArLongNames(4000, 280000, 3), 0o644)
	cut := `"` + strings.Repeat("A", 4096) + `"... (280000 bytes): empty  size 0 at `
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "inspect", "names.a"}, 0, "names.a: archive (4000 members)\n  " + cut},
		{[]string{"offload", "inspect", "tails.a"}, 0, "tails.a: archive (4000 members)\n  " + cut},
		{[]string{"offload", "extract", "--list", "names.a"}, 1, "no device image matches the selection in names.a"},
		{[]string{"offload", "extract", "--list", "tails.a"}, 1, "no device image matches the selection in tails.a"},
		{[]string{"clang-offload-bundler", "-unbundle", "-type=a", "-targets=hipv4-amdgcn-amd-amdhsa--gfx906",
			"-input=tails.a", "-output=out.a"}, 1, "no compatible code object found for the target 'hipv4-amdgcn-amd-amdhsa--gfx906'"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
		if r.Bytes > 20<<20 {
			t.Errorf("%q: %d bytes of output", c.argv, r.Bytes)
		}
	}
}

// symbolAt sets st_shndx of symbol 1 of the first symbol table of obj.
func symbolAt(t *testing.T, obj []byte, shndx uint16) []byte {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(string(obj)))
	if err != nil {
		t.Fatal(err)
	}
	s := f.SectionByType(elf.SHT_SYMTAB)
	out := append([]byte(nil), obj...)
	f.ByteOrder.PutUint16(out[s.Offset+s.Entsize+6:], shndx)
	return out
}

// A 488-byte object with a symbol defined in section 20224 of five:
// bundling it (-type=o) and embedding into it indexed the section table
// and panicked ("index out of range [20224] with length 5"), unbundling
// named elfobj's words. Each now refuses it, writing nothing, the bundler
// as LLVM 22's does: llvm-objcopy's line, then its own.
func TestSymbolSectionPastTableRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.o"), hostile.ELFSymbolInSection(20224), 0o644)
	os.WriteFile(filepath.Join(dir, "good.o"), hostile.ELFSymbolInSection(1), 0o644)
	os.WriteFile(filepath.Join(dir, "dev.bin"), []byte("device"), 0o644)
	targets := "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906"
	if r := runCapped(t, dir, "clang-offload-bundler", "-type=o", targets, "-input=good.o", "-input=dev.bin", "-output=fat.o"); r.Code != 0 {
		t.Fatalf("bundling good.o: %v", r)
	}
	fat, _ := os.ReadFile(filepath.Join(dir, "fat.o"))
	os.WriteFile(filepath.Join(dir, "badfat.o"), symbolAt(t, fat, 20224), 0o644)
	const objcopy = "llvm-objcopy: error: symbol 'main' is defined has invalid section index 20224\n"
	for _, c := range []struct {
		args []string // less the outputs
		outs []string // suffixes of the outputs' names
	}{
		{[]string{"-type=o", targets, "-input=bad.o", "-input=dev.bin"}, []string{".o"}},
		{[]string{"-unbundle", "-type=o", targets, "-input=badfat.o"}, []string{".o", ".bin"}},
	} {
		outputs := func(stem string) []string {
			args := append([]string(nil), c.args...)
			for _, s := range c.outs {
				args = append(args, "-output="+stem+s)
			}
			return args
		}
		const want = "error: 'llvm-objcopy' tool failed\n"
		r := runCapped(t, dir, append([]string{"clang-offload-bundler"}, outputs("out")...)...)
		if r.Code != 1 || r.Output != objcopy+"clang-offload-bundler: "+want {
			t.Errorf("%q: %v; want objcopy's line and %q", c.args, r, want)
		}
		if llvmtest.Has(llvmtest.Bundler) {
			l := llvmtest.RunResult(t, dir, llvmtest.BundlerEnv(), llvmtest.Bundler, outputs("llvm")...)
			if l.Code != 1 || l.Stderr != objcopy+llvmtest.Bundler+": "+want {
				t.Errorf("%q: LLVM says otherwise now: %v", c.args, l)
			}
		}
	}
	r := runCapped(t, dir, "offload", "embed", "--image=file=dev.bin,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip", "bad.o", "-o", "out.o")
	if r.Code != 1 || r.Output != "offload embed: error: bad.o: elfobj: symbol 'main' is defined has invalid section index 20224 at offset 0x60\n" {
		t.Errorf("embed: %v", r)
	}
	for _, name := range []string{"out.o", "out.bin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written", name)
		}
	}
}

// Such archives in inspect --json: every member's name was written whole,
// 1.1 GB of JSON for the 4,000 members above, 88 s and 5 GB resident
// here. Names longer than 4 KiB are cut to that and the node's
// "truncated" gives the whole length, so the document stays valid, says
// what it left out, and is proportional to the members (2,000 here, 8.6 MB
// of JSON, within what capped.Run keeps of the output).
func TestArLongNamesJSONBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "names.a"), hostile.ArLongNames(2000, 280000, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "tails.a"), hostile.ArLongNames(2000, 280000, 3), 0o644)
	for _, in := range []string{"names.a", "tails.a"} {
		r := runCapped(t, dir, "offload", "inspect", "--json", in)
		if r.Code != 0 || r.Bytes > 10<<20 {
			t.Errorf("inspect --json %s: %v; %d bytes of output", in, r, r.Bytes)
			continue
		}
		var doc struct {
			Files []struct {
				Children []struct {
					Name      string         `json:"name"`
					Truncated map[string]int `json:"truncated"`
				} `json:"children"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(r.Output), &doc); err != nil || len(doc.Files) != 1 || len(doc.Files[0].Children) != 2000 {
			t.Errorf("inspect --json %s: %v, %d bytes", in, err, r.Bytes)
			continue
		}
		for i, m := range doc.Files[0].Children {
			// Member i names the tail from 3i (mod the name's length) on.
			whole := 280000 - (3*i)%280000
			if in == "names.a" {
				whole = 280000
			}
			if m.Name != strings.Repeat("A", 4096) || len(m.Truncated) != 1 || m.Truncated["name"] != whole {
				t.Errorf("inspect --json %s: member %d is named %d bytes, truncated %v; want 4096 bytes of %d", in, i, len(m.Name), m.Truncated, whole)
				break
			}
		}
	}
}

// Bundling objects whose symbols name tails of shared strings lays their
// names out as llvm-objcopy does, byte for byte: small ones, so that
// clang-offload-bundler-22 takes no time, with one shared string (stride
// 0), different tails of one (7, 3), and tails landing in a name other
// than the one they start in (hostile.ELFSymbolsAt).
func TestLongSymbolNamesBundleAsLLVM(t *testing.T) {
	llvmtest.Need(t, "clang-offload-bundler-22")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "dev.bin"), []byte("device"), 0o644)
	inputs := map[string][]byte{
		"same.o":   hostile.ELFLongSymbols(300, 4000, 0),
		"tails7.o": hostile.ELFLongSymbols(300, 4000, 7),
		"tails3.o": hostile.ELFLongSymbols(50, 40, 3),
		// "ab" inside "zab" goes inside "xab", written after it; "zab"
		// inside "yzab"; "b" inside "cab"; the names themselves too.
		"mixed.o": hostile.ELFSymbolsAt("\x00zab\x00xab\x00yzab\x00cab\x00zab\x00", []uint32{2, 10, 17, 1, 5, 9, 14, 18, 0}),
	}
	for name, b := range inputs {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
		args := []string{"-type=o", "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906", "-input=" + name, "-input=dev.bin"}
		r := runCapped(t, dir, append([]string{"clang-offload-bundler"}, append(args, "-output=ours-"+name)...)...)
		if r.Code != 0 {
			t.Errorf("%s: %v", name, r)
			continue
		}
		llvmtest.Run(t, dir, "clang-offload-bundler-22", append(args, "-output=theirs-"+name)...)
		ours, theirs := llvmtest.ReadFile(t, filepath.Join(dir, "ours-"+name)), llvmtest.ReadFile(t, filepath.Join(dir, "theirs-"+name))
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s bundled: %s", name, llvmtest.FirstDiff(ours, theirs))
		}
	}
}
