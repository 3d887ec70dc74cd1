package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two outputs of one group on one path (or on paths that differ in case
// only) would silently overwrite each other: refused.
func TestGroupRefusesSamePathTwice(t *testing.T) {
	dir := t.TempDir()
	var g Group
	defer g.Abort()
	if _, err := g.Create(filepath.Join(dir, "a.o")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "a.o"), filepath.Join(dir, ".", "A.O")} {
		if _, err := g.Create(p); err == nil || !strings.Contains(err.Error(), "written twice") {
			t.Errorf("Create(%s) a second time: %v", p, err)
		}
	}
}

// A replaced output keeps its mode, private or executable.
func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []os.FileMode{0o600, 0o755} {
		p := filepath.Join(dir, mode.String())
		os.WriteFile(p, []byte("old"), mode)
		os.Chmod(p, mode)
		if err := WriteFile(p, strings.NewReader("new")); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != mode {
			t.Errorf("replacing a %v file gave %v", mode, fi.Mode().Perm())
		}
	}
}

// Finish closes an output early; Commit still publishes it.
func TestFinishEarly(t *testing.T) {
	dir := t.TempDir()
	var g Group
	f, _ := g.Create(filepath.Join(dir, "x"))
	write(t, f, "data")
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("more"); err == nil {
		t.Fatal("a finished output still accepts writes")
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "data" {
		t.Fatalf("x = %q", b)
	}
}

// RemoveTemps (for signal handlers) removes the temporary files of every
// output not yet committed.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	var g Group
	for _, n := range []string{"x", "y"} {
		f, _ := g.Create(filepath.Join(dir, n))
		write(t, f, n)
	}
	g.files[0].Finish()
	RemoveTemps()
	if names := listDir(t, dir); len(names) != 0 {
		t.Fatalf("RemoveTemps left %v", names)
	}
}
