package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

func write(t *testing.T, f *File, s string) {
	t.Helper()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	return llvmtest.DirNames(t, dir)
}

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "partial")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output visible before Commit")
	}
	f.Abort()
	if names := listDir(t, dir); len(names) != 0 {
		t.Fatalf("Abort left %v", names)
	}
	f, _ = Create(out)
	write(t, f, "whole")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: no effect
	b, _ := os.ReadFile(out)
	fi, _ := os.Stat(out)
	if string(b) != "whole" || fi.Mode().Perm() != 0o666&^umask {
		t.Fatalf("got %q mode %v", b, fi.Mode())
	}
}

// TestGroupRollsBack: when the second rename fails (its destination is a
// non-empty directory), the first output goes back to what it was.
func TestGroupRollsBack(t *testing.T) {
	dir := t.TempDir()
	a, b, fresh := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	os.WriteFile(a, []byte("old a"), 0o644)
	os.MkdirAll(filepath.Join(b, "x"), 0o755)
	var g Group
	for _, p := range []string{a, fresh, b} {
		f, err := g.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		write(t, f, "new")
	}
	if err := g.Commit(); err == nil {
		t.Fatal("Commit succeeded over a directory")
	}
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Errorf("a = %q, want the old content back", got)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("new output c left behind")
	}
	for _, n := range listDir(t, dir) {
		if strings.HasPrefix(n, ".") {
			t.Errorf("temporary file %s left behind", n)
		}
	}
}

func TestGroupCommits(t *testing.T) {
	dir := t.TempDir()
	var g Group
	for _, n := range []string{"x", "y"} {
		f, _ := g.Create(filepath.Join(dir, n))
		write(t, f, n)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if names := listDir(t, dir); strings.Join(names, ",") != "x,y" {
		t.Fatalf("directory holds %v", names)
	}
}

func TestDevicesWrittenInPlace(t *testing.T) {
	f, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "discarded")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatal("/dev/null was replaced")
	}
}
