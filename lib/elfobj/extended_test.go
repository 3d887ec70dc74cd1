package elfobj

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// manySections is assembly with more sections than e_shnum can count, and
// a global symbol in a section above SHN_LORESERVE (so it needs
// SHN_XINDEX and a .symtab_shndx table).
func manySections() string {
	var b strings.Builder
	b.WriteString(".section .low0,\"\",@progbits\n.byte 1\n")
	for i := range 65300 {
		fmt.Fprintf(&b, ".section .s%d,\"a\",@progbits\n.byte 0\n", i)
	}
	b.WriteString(".globl high_sym\nhigh_sym:\n.byte 7\n")
	return b.String()
}

// headerCounts returns the section count and name-table index lines of
// llvm-readelf-22 -h.
func headerCounts(t *testing.T, path string) string {
	var out []string
	for _, l := range strings.Split(llvmtest.Run(t, "", "llvm-readelf-22", "-h", path), "\n") {
		if strings.Contains(l, "Number of section headers") || strings.Contains(l, "string table index") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, "; ")
}

// TestExtendedNumbering covers e_shnum = 0, e_shstrndx = SHN_XINDEX (gas
// puts .shstrtab last) and SHN_XINDEX symbols, across add and remove, and
// dropping back below SHN_LORESERVE.
func TestExtendedNumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds objects with 65k sections")
	}
	llvmtest.Need(t, "llvm-readelf-22")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "many.s"), []byte(manySections()), 0o644)
	for _, cc := range []string{"clang-22", "gcc"} {
		t.Run(cc, func(t *testing.T) {
			llvmtest.Need(t, cc)
			orig := filepath.Join(dir, cc+".o")
			llvmtest.Run(t, dir, cc, "-c", "many.s", "-o", orig)
			origSecs := readelfSections(t, orig)
			n := len(origSecs)
			o := testObject{name: cc, path: orig}

			added := filepath.Join(dir, cc+"-added.o")
			addFile(t, orig, added, bundleSections())
			gotSecs := readelfSections(t, added)
			compareSectionLists(t, gotSecs[:n], origSecs)
			if len(gotSecs) != n+len(bundleSections()) || !isBundle(Section{Name: gotSecs[n].Name}) {
				t.Fatalf("added file has %d sections (want %d), section %d is %q", len(gotSecs), n+3, n, gotSecs[n].Name)
			}
			if h := headerCounts(t, added); !strings.Contains(h, fmt.Sprintf("headers: 0 (%d)", n+3)) {
				t.Errorf("header counts %q", h)
			}
			equalLines(t, "symbols", normalisedSymbols(t, added), normalisedSymbols(t, orig))
			checkReadersQuiet(t, orig, added)

			stripped := filepath.Join(dir, cc+"-stripped.o")
			if err := removeFile(t, added, stripped, func(s Section) bool { return isBundle(s) || s.Name == ".low0" }); err != nil {
				t.Fatal(err)
			}
			if got := len(readelfSections(t, stripped)); got != n-1 {
				t.Fatalf("%d sections after removal, want %d", got, n-1)
			}
			equalLines(t, "symbols", normalisedSymbols(t, stripped), normalisedSymbols(t, orig))
			checkReadersQuiet(t, orig, stripped)

			// Dropping 400 sections brings the count back under SHN_LORESERVE;
			// high_sym keeps SHN_XINDEX with a small extended index.
			small := filepath.Join(dir, cc+"-small.o")
			low := func(s Section) bool {
				var i int
				_, err := fmt.Sscanf(s.Name, ".s%d", &i)
				return err == nil && i < 400
			}
			if err := removeFile(t, orig, small, low); err != nil {
				t.Fatal(err)
			}
			if h := headerCounts(t, small); !strings.Contains(h, fmt.Sprintf("headers: %d", n-400)) || strings.Contains(h, "65535") {
				t.Errorf("header counts %q", h)
			}
			equalLines(t, "symbols", normalisedSymbols(t, small), normalisedSymbols(t, orig))
			checkReadersQuiet(t, orig, small)
			_ = o
		})
	}
}
