package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A limit of 0 is refused by every command that takes one, in one
// wording: inside the tool 0 stands for the default, so a 0 that got
// through would quietly mean 4 GiB.
func TestZeroLimitsRefused(t *testing.T) {
	dir := t.TempDir()
	// Not a container: each command would read it and succeed or fail on
	// its own terms if the limit were let through.
	if err := os.WriteFile(filepath.Join(dir, "in.bin"), []byte("plain bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		argv []string
		flag string
	}{
		{[]string{"offload", "inspect", "--max-uncompressed-size=0", "in.bin"}, "--max-uncompressed-size"},
		{[]string{"offload", "extract", "--list", "--max-uncompressed-size=0K", "in.bin"}, "--max-uncompressed-size"},
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=in.bin", "--max-uncompressed-size=0"}, "--max-uncompressed-size"},
		{[]string{"offload", "extract", "--max-output-size=0", "in.bin"}, "--max-output-size"},
		{[]string{"offload", "regcheck", "--max-uncompressed-size=0", "in.bin"}, "--max-uncompressed-size"},
	} {
		rc, out, errs := wrapRun(t, dir, c.argv[0], c.argv[1:]...)
		value := c.argv[len(c.argv)-2]
		if c.argv[0] == "clang-offload-bundler" {
			value = c.argv[len(c.argv)-1]
		}
		value = value[strings.Index(value, "=")+1:]
		want := "for the " + c.flag + " option: '" + value + "' is not a positive byte count"
		if rc == 0 || !strings.Contains(errs, want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a refusal saying %q", c.argv, rc, out, errs, want)
		}
	}
}
