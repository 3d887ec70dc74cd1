package bitcode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// compileCases are the bitcode kinds a device archive or an LTO archive
// holds; gen.sh builds the same set into testdata.
var compileCases = []struct {
	name, tool, src string
	args            []string
}{
	{"x86_64-flto", "clang-22", "symkinds.c", []string{"-fcommon", "-flto", "-c"}},
	{"x86_64-thinlto", "clang-22", "symkinds.c", []string{"-flto=thin", "-c"}},
	{"x86_64-module-asm", "clang-22", "module-asm.c", []string{"-flto", "-c"}},
	{"x86_64-cxx", "clang++-22", "symkinds.cpp", []string{"-flto", "-c"}},
	{"x86_64-cfi-two-modules", "clang++-22", "symkinds.cpp", []string{"-flto=thin", "-fsanitize=cfi", "-fno-sanitize-ignorelist", "-fvisibility=hidden", "-c"}},
	{"amdgcn-hip-rdc", "clang++-22", "device.hip", []string{"-x", "hip", "--cuda-device-only", "-fgpu-rdc", "-emit-llvm", "-c",
		"--offload-arch=gfx90a:xnack+", "-nogpuinc", "-nogpulib", "--no-gpu-bundle-output"}},
	{"nvptx64-cuda-rdc", "clang++-22", "device.hip", []string{"-x", "cuda", "--cuda-device-only", "-fgpu-rdc", "-emit-llvm", "-c",
		"--cuda-gpu-arch=sm_52", "-nocudainc", "-nocudalib"}},
	{"x86_64-darwin-wrapper", "clang-22", "dev.c", []string{"-target", "x86_64-apple-macosx11", "-flto", "-c"}},
	{"x86_64-clang16", "clang-16", "dev.c", []string{"-flto", "-c"}},
}

// armap returns the names in the GNU symbol table ("/") of an archive.
func armap(t *testing.T, a []byte) []string {
	t.Helper()
	if !bytes.HasPrefix(a, []byte("!<arch>\n/ ")) || len(a) < 8+60+4 {
		t.Fatalf("archive has no GNU symbol table: %q", a[:min(len(a), 80)])
	}
	size, err := strconv.Atoi(strings.TrimSpace(string(a[8+48 : 8+58])))
	if err != nil || 8+60+size > len(a) {
		t.Fatalf("bad symbol table size %q", a[8+48:8+58])
	}
	d := a[8+60 : 8+60+size]
	n := int(binary.BigEndian.Uint32(d))
	names := strings.Split(string(d[4+4*n:]), "\x00")
	return names[:n]
}

// TestLLVMArchiveMap compiles fresh bitcode of every kind with the
// installed clang, archives it with llvm-ar-22 (which lists symbols from
// the IR) and compares its symbol table with ArchiveSymbols, member by
// member in order; each file's flags are compared with llvm-lto2-22.
func TestLLVMArchiveMap(t *testing.T) {
	ar := llvmtest.Tool(t, "llvm-ar-22")
	lto := llvmtest.Tool(t, "llvm-lto2-22")
	dir := t.TempDir()
	var members []string
	var want []string
	for _, tc := range compileCases {
		if !llvmtest.Has(tc.tool) {
			t.Logf("SKIPPING %s: %s not on PATH", tc.name, tc.tool)
			continue
		}
		out := tc.name + ".bc"
		src, err := filepath.Abs(filepath.Join("testdata", "src", tc.src))
		if err != nil {
			t.Fatal(err)
		}
		llvmtest.Run(t, dir, tc.tool, append(slices.Clone(tc.args), src, "-o", out)...)
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		syms, err := ArchiveSymbols(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		st, err := ReadSymtab(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { compareDump(t, st, llvmtest.Run(t, dir, lto, "dump-symtab", out)) })
		members = append(members, out)
		want = append(want, syms...)
	}
	llvmtest.Run(t, dir, ar, append([]string{"--format=gnu", "rc", "all.a"}, members...)...)
	a, err := os.ReadFile(filepath.Join(dir, "all.a"))
	if err != nil {
		t.Fatal(err)
	}
	if got := armap(t, a); !slices.Equal(want, got) {
		t.Errorf("archive map:\nllvm-ar-22 %q\nours       %q", got, want)
	}
}

// TestLLVMReadsSplicedEncodings re-encodes the SYMTAB and STRTAB blocks of
// a clang file in unusual but valid ways and checks that LLVM and this
// package read the same table from them. A flag bit is flipped in the
// table first, so LLVM's answer shows it read the table rather than
// rebuilding it from the IR.
func TestLLVMReadsSplicedEncodings(t *testing.T) {
	lto := llvmtest.Tool(t, "llvm-lto2-22")
	b, err := os.ReadFile("testdata/clang22-x86_64-flto-symkinds.bc")
	if err != nil {
		t.Fatal(err)
	}
	prefix, symtab, strtab := splitTables(t, b)
	sym0 := int(binary.LittleEndian.Uint32(symtab[hdrSymbols:]))
	flags := binary.LittleEndian.Uint32(symtab[sym0+symFlags:])
	binary.LittleEndian.PutUint32(symtab[sym0+symFlags:], flags|uint32(FlagWeak))

	variants := map[string][]byte{
		"abbreviations, arrays, nested and unknown blocks": cont(prefix).
			define(op{opLiteral, 3}, op{opFixed, 5}).unabbrev(7, 1, 2).
			enter(30, 3).unabbrev(1, 99).end().
			enter(symtabBlockID, 4).unabbrev(1, 5).
			define(op{opFixed, 4}, op{opVBR, 6}, op{opArray, 0}, op{enc: opChar6}).
			bits(firstUserAbbrev, 4).bits(3, 4).vbr(1000, 6).vbr(2, 6).bits(1, 6).bits(2, 6).
			enter(99, 2).unabbrev(1, 1).end().
			define(op{opFixed, 4}, op{opVBR, 6}, op{enc: opBlob}, op{opLiteral, 5}).
			bits(firstUserAbbrev+1, 4).bits(1, 4).vbr(77, 6).vbr(uint64(len(symtab)), 6).align32().bytes(symtab).align32().
			end().
			enter(strtabBlockID, 5).define(op{opLiteral, 1}, op{enc: opBlob}).blobRecord(firstUserAbbrev, strtab).end().done(),
		"char6 record code": cont(prefix).
			enter(symtabBlockID, 3).define(op{enc: opChar6}, op{enc: opBlob}).
			bits(firstUserAbbrev, 3).bits(1, 6).vbr(8, 6).align32().bytes([]byte("garbage!")).align32().end().
			blobBlock(symtabBlockID, symtab).blobBlock(strtabBlockID, strtab).done(),
		"empty first symbol table, extra string table": cont(prefix).
			blobBlock(symtabBlockID, nil).blobBlock(symtabBlockID, symtab).
			blobBlock(strtabBlockID, strtab).blobBlock(strtabBlockID, []byte("garbage")).done(),
	}
	dir := t.TempDir()
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			for i, file := range [][]byte{v, wrapStream(v)} {
				path := filepath.Join(dir, "v.bc")
				if err := os.WriteFile(path, file, 0o644); err != nil {
					t.Fatal(err)
				}
				dump := llvmtest.Run(t, dir, lto, "dump-symtab", "v.bc")
				if !strings.Contains(dump, "D--W---X f_def") {
					t.Fatalf("LLVM did not read the edited table (wrapped=%v):\n%s", i == 1, dump)
				}
				st, err := ReadSymtab(bytes.NewReader(file), int64(len(file)))
				if err != nil {
					t.Fatal(err)
				}
				compareDump(t, st, dump)
			}
		})
	}
}

// splitTables returns the bytes of b before its SYMTAB_BLOCK (magic,
// identification and module blocks) and copies of the two blobs.
func splitTables(t *testing.T, b []byte) (prefix, symtab, strtab []byte) {
	t.Helper()
	c, err := stream(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var f contents
	for f.symtab.size == 0 {
		start := c.pos / 8
		_, id, err := c.advance()
		if err != nil {
			t.Fatal(err)
		}
		if id == symtabBlockID {
			prefix = b[:start]
		}
		if err := f.block(c, id); err != nil {
			t.Fatal(err)
		}
	}
	for f.strtab.size == 0 {
		_, id, err := c.advance()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.block(c, id); err != nil {
			t.Fatal(err)
		}
	}
	at := func(r blobRef) []byte { return slices.Clone(b[r.off : r.off+r.size]) }
	return prefix, at(f.symtab), at(f.strtab)
}

// cont continues a top-level stream after prefix, which ends on a word.
func cont(prefix []byte) *bitWriter {
	return &bitWriter{buf: slices.Clone(prefix), n: uint64(len(prefix)) * 8, width: topLevelWidth}
}

// wrapStream puts b in a wrapper header (offset 20, as Darwin writes it)
// followed by a 12-byte trailer.
func wrapStream(b []byte) []byte {
	h := binary.LittleEndian.AppendUint32([]byte(WrapperMagic), 0)
	h = binary.LittleEndian.AppendUint32(h, 20)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(b)))
	h = binary.LittleEndian.AppendUint32(h, 7) // CPU type
	return append(append(h, b...), make([]byte, 12)...)
}
