package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// String tables without their final NUL: LLVM's ELF reader refuses the
// section name table on reading the names (listing, unbundling), and
// llvm-objcopy, which LLVM's bundler runs to add or remove bundle
// sections, refuses a symbol table's string table too. The drop-in
// bundler prints LLVM 22's lines; inspect says the same words as an error
// of the file. Each is checked within the caps and, where
// clang-offload-bundler-22 is installed, against its stderr.
func TestUnterminatedStringTables(t *testing.T) {
	dir := t.TempDir()
	const host, dev = "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"
	const magic = "__CLANG_OFFLOAD_BUNDLE__"
	os.WriteFile(filepath.Join(dir, "syms.o"), hostile.ELFUnterminatedStrtab(true), 0o644)
	os.WriteFile(filepath.Join(dir, "fatsyms.o"), hostile.ELFUnterminatedStrtab(true, magic+host, magic+dev), 0o644)
	os.WriteFile(filepath.Join(dir, "names.o"), hostile.ELFUnterminatedStrtab(false, magic+host, magic+dev), 0o644)
	os.WriteFile(filepath.Join(dir, "dev.bin"), []byte("device"), 0o644)
	const (
		symtab   = "SHT_STRTAB string table section [index 3] is non-null terminated"
		names    = "SHT_STRTAB string table section [index 4] is non-null terminated"
		objcopy  = "llvm-objcopy: error: "
		bundler  = "clang-offload-bundler: error: "
		toolFail = bundler + "'llvm-objcopy' tool failed\n"
	)
	bundle := func(in string) []string {
		return []string{"clang-offload-bundler", "-type=o", "-targets=" + host + "," + dev, "-input=" + in, "-input=dev.bin", "-output=fat.o"}
	}
	unbundle := func(in string) []string {
		return []string{"clang-offload-bundler", "-type=o", "-targets=" + host + "," + dev, "-input=" + in, "-output=h.o", "-output=d.bin", "-unbundle"}
	}
	for _, c := range []struct {
		argv []string
		code int
		out  string // all of the output, or for inspect a line of it
	}{
		{bundle("syms.o"), 1, objcopy + symtab + "\n" + toolFail},
		{unbundle("fatsyms.o"), 1, objcopy + symtab + "\n" + toolFail},
		{bundle("names.o"), 1, objcopy + names + "\n" + toolFail},
		{unbundle("names.o"), 1, bundler + names + "\n"},
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=names.o"}, 1, bundler + names + "\n"},
		// Listing reads no symbol: the bundles are listed, as LLVM does.
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=fatsyms.o"}, 0, host + "\n" + dev + "\n"},
		{[]string{"offload", "inspect", "names.o"}, 1, names},
		{[]string{"offload", "inspect", "syms.o"}, 0, "elf (ELF64 relocatable, X86_64)"},
	} {
		r := runCapped(t, dir, c.argv...)
		ok := r.Code == c.code && r.Output == c.out
		if c.argv[0] == "offload" {
			ok = r.Code == c.code && strings.Contains(r.Output, c.out)
		}
		if !ok {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.out)
		}
		if c.argv[0] != "clang-offload-bundler" || !llvmtest.Has("clang-offload-bundler-22") {
			continue
		}
		l := llvmtest.RunResult(t, dir, llvmtest.BundlerEnv(), "clang-offload-bundler-22", c.argv[1:]...)
		want := strings.ReplaceAll(l.Stdout+l.Stderr, "clang-offload-bundler-22: ", "clang-offload-bundler: ")
		if l.Code != c.code || want != c.out {
			t.Errorf("%q: clang-offload-bundler-22 says %v; the test wants exit %d saying %q", c.argv, l, c.code, c.out)
		}
	}
}
