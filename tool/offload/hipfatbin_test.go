package main

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/hipfatbin"
)

// TestHIPFatbinObjectCLI: offload hipfb-object writes an object defining the
// cuid's symbol over the whole input, and on any error writes nothing.
func TestHIPFatbinObjectCLI(t *testing.T) {
	dir := t.TempDir()
	wrapperInputs(t, dir)
	rc, _, stderr := wrapRun(t, dir, "offload", "hipfb-object", "--cuid=lib/k.hip", "-o", "k.o", "k.hipfb")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	f, err := elf.Open(filepath.Join(dir, "k.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	if len(syms) == 0 || syms[len(syms)-1].Name != hipfatbin.SymbolName("lib/k.hip") || syms[len(syms)-1].Size != 32 {
		t.Errorf("symbols: %+v", syms)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cuid=c", "-o", "bad.o", "k.fatbin"}, "'k.fatbin': not a HIP fat binary"},
		{[]string{"-o", "bad.o", "k.hipfb"}, "a cuid is required"},
		{[]string{"--cuid=c", "--triple=x86_64-pc-windows-msvc", "-o", "bad.o", "k.hipfb"}, "ELF hosts only"},
		{[]string{"--cuid=c", "-o", "bad.o", "k.hipfb", "k.hipfb"}, "expected one HIP fat binary, got 2"},
		{[]string{"--cuid=c", "k.hipfb"}, "give -o"},
		{[]string{"--cuid=c", "-o", "bad.o", "missing.hipfb"}, "missing.hipfb"},
	} {
		rc, _, stderr := wrapRun(t, dir, "offload", append([]string{"hipfb-object"}, c.args...)...)
		if rc != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, rc, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.o")); err == nil {
			t.Errorf("%v: bad.o written", c.args)
		}
	}
}
