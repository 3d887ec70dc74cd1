package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// llvm-offload-binary FILE --image=... names each image it extracts after
// its triple and arch, which come from the input: a triple holding an ESC
// sequence and a newline made a file whose name repaints the terminal and
// forges a line of `ls` (LLVM 22 writes that name too). Such characters
// are now '_' in the name.
func TestExtractedNamesPrintable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "code.o"), []byte("device code"), 0o644)
	triple := "amdgcn-amd-amdhsa\x1b[2J\nforged"
	if r := runCapped(t, dir, "llvm-offload-binary", "-o", "p.bin", "--image=file=code.o,triple="+triple+",arch=gfx906,kind=hip"); r.Code != 0 {
		t.Fatalf("packaging: %v", r)
	}
	r := runCapped(t, dir, "llvm-offload-binary", "p.bin", "--image=kind=hip")
	if r.Code != 0 {
		t.Fatalf("extracting: %v", r)
	}
	want := "p-amdgcn-amd-amdhsa_[2J_forged-gfx906.0.o"
	b, err := os.ReadFile(filepath.Join(dir, want))
	if err != nil || string(b) != "device code" {
		t.Errorf("%s: %q, %v; want the image", want, b, err)
	}
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if strings.IndexFunc(n.Name(), func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			t.Errorf("wrote %q", n.Name())
		}
	}
}
