package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Architecture-specific targets (sm_90a): offload fatbin writes them as
// CUDA 12.4's fatbinary marks them (entry flag 0x100000), and inspect,
// extract and regcheck's reader name them; what cannot be one is refused
// with a clear error, under the caps of the other readers, nothing
// written.
func TestFatbinAccelerated(t *testing.T) {
	dir := t.TempDir()
	// A cubin header of ptxas 12.4 for sm_90a: ABI version 7, e_flags
	// 0x5a0d5a (SM 90, 0x800 the "a", 0x400 64-bit).
	cubin := cubinHeader(90)
	cubin[8] = 7
	copy(cubin[48:], []byte{0x5a, 0x0d, 0x5a, 0x00})
	os.WriteFile(filepath.Join(dir, "k.sm_90a.cubin"), append(cubin, make([]byte, 64)...), 0o644)
	os.WriteFile(filepath.Join(dir, "k.ptx"), []byte(".version 8.4\n.target sm_90a\n"), 0o644)
	write := func(name string, e hostile.NVEntry) {
		os.WriteFile(filepath.Join(dir, name), hostile.NVFatbin([]hostile.NVEntry{e}), 0o644)
	}
	// The flag on SMs before 90, which have no "a" target.
	write("sm70a.fatbin", hostile.NVEntry{Kind: 2, Arch: 70, Header: 72, Payload: cubinHeader(70), Accelerated: true})
	write("sm0a.fatbin", hostile.NVEntry{Kind: 1, Arch: 0, Header: 72, Payload: []byte(".version 8.4\x00"), Accelerated: true})
	image3 := func(spec string) string { return "--image3=kind=elf,sm=" + spec + ",file=k.sm_90a.cubin" }
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "fatbin", "-64", "--cuda-version=12.4", "--create=a.fatbin", image3("90a"),
			"--image3=kind=ptx,sm=90a,file=k.ptx"}, 0, ""},
		{[]string{"offload", "inspect", "a.fatbin"}, 0, "entry 0: elf (cubin for sm_90a, code version 1.7)"},
		{[]string{"offload", "inspect", "a.fatbin"}, 0, "entry 1: ptx (sm_90a, code version 8.4"},
		{[]string{"offload", "extract", "--list", "a.fatbin"}, 0, "sm_90a"},
		{[]string{"offload", "fatbin", "-64", "--create=b.fatbin", image3("90a")}, 2,
			"k.sm_90a.cubin: sm_90a: CUDA 11.8's fatbinary has no architecture-specific targets (they came with CUDA 12.0); give --cuda-version=12.4 or later"},
		{[]string{"offload", "fatbin", "-64", "--cuda-version=12.4", "--create=b.fatbin", image3("89a")}, 2,
			"sm=89a: sm_89a is not a target: SM 89 has no architecture-specific variant"},
		{[]string{"offload", "fatbin", "-64", "--cuda-version=13.0", "--create=b.fatbin", image3("90f")}, 2,
			"sm=90f: family-specific target sm_90f: not written"},
		{[]string{"offload", "fatbin", "-64", "--cuda-version=13.0", "--create=b.fatbin", image3("90ab")}, 2,
			`sm=90ab: unknown suffix "ab"`},
		{[]string{"offload", "inspect", "sm70a.fatbin"}, 1, "flags 0x100011 mark sm_70 architecture-specific, which no SM before 90 is"},
		{[]string{"offload", "extract", "sm70a.fatbin"}, 1, "flags 0x100011 mark sm_70 architecture-specific"},
		{[]string{"offload", "extract", "sm0a.fatbin"}, 1, "flags 0x100011 mark sm_0 architecture-specific"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.fatbin")); err == nil {
		t.Errorf("b.fatbin written")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "sm*a.fatbin-*")); len(names) != 0 {
		t.Errorf("extract wrote %v", names)
	}
}
