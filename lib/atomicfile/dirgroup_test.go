package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// swapForSymlink moves dir aside and puts a symbolic link to elsewhere in
// its place, as an attacker sharing the parent directory could mid-run.
func swapForSymlink(t *testing.T, dir string) (moved, elsewhere string) {
	t.Helper()
	moved, elsewhere = dir+".moved", dir+".elsewhere"
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	return moved, elsewhere
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func writeSome(t *testing.T, g *DirGroup, names ...string) *DirFile {
	t.Helper()
	var first *DirFile
	for _, n := range names {
		f, err := g.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("data of " + n)
		if err := f.Finish(); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = f
		}
	}
	return first
}

// The output directory swapped for a symbolic link during the run (the
// review left 1,443 temporary files, 1.5 GB, behind): an aborted group
// removes every temporary file from the directory it opened, and nothing
// is made where the link points.
func TestDirGroupAbortCleansUpAfterSwap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	g, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := writeSome(t, g, "a.o", "b.o")
	moved, elsewhere := swapForSymlink(t, dir)
	writeSome(t, g, "c.o")
	if err := g.Link("d.o", first); err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if left := names(t, moved); len(left) != 0 {
		t.Errorf("left behind in the opened directory: %q", left)
	}
	if left := names(t, elsewhere); len(left) != 0 {
		t.Errorf("written where the link points: %q", left)
	}
}

// Committed after the swap, the outputs land in the directory opened, with
// no temporary file left; a link shares its first file's inode.
func TestDirGroupCommitAfterSwap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.o"), []byte("old"), 0o600)
	g, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := writeSome(t, g, "a.o", "b.o")
	moved, elsewhere := swapForSymlink(t, dir)
	if err := g.Link("c.o", first); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	g.Abort() // a deferred Abort after Commit does nothing
	if got := strings.Join(names(t, moved), " "); got != "a.o b.o c.o" {
		t.Errorf("files %q", got)
	}
	if left := names(t, elsewhere); len(left) != 0 {
		t.Errorf("written where the link points: %q", left)
	}
	a, _ := os.Stat(filepath.Join(moved, "a.o"))
	c, _ := os.Stat(filepath.Join(moved, "c.o"))
	if !os.SameFile(a, c) || a.Sys().(*syscall.Stat_t).Nlink != 2 {
		t.Errorf("c.o is not a hard link to a.o")
	}
	if a.Mode().Perm() != 0o600 {
		t.Errorf("a.o replaced with mode %v, want the 0600 of the file it replaced", a.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(moved, "c.o")); string(b) != "data of a.o" {
		t.Errorf("c.o holds %q", b)
	}
}

// A name given twice in one group is refused, case-folded.
func TestDirGroupRefusesSameNameTwice(t *testing.T) {
	g, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Abort()
	writeSome(t, g, "a.o")
	if _, err := g.Create("A.o"); err == nil {
		t.Error("A.o accepted after a.o")
	}
}

// RemoveTemps (the signal handler's) removes a DirGroup's temporary files
// too, from the directory opened, and leaves committed outputs alone.
func TestRemoveTempsCleansDirGroups(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	g, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Abort()
	first := writeSome(t, g, "a.o")
	g.Link("b.o", first)
	moved, _ := swapForSymlink(t, dir)
	RemoveTemps()
	if left := names(t, moved); len(left) != 0 {
		t.Errorf("left behind: %q", left)
	}
}
