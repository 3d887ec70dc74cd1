package container

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func TestOpenRegularFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "in")
	os.WriteFile(name, []byte("hello"), 0o644)
	s, err := Open(name, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Size != 5 || s.Name != name {
		t.Fatalf("Open = %q, %d bytes", s.Name, s.Size)
	}
}

func TestOpenDirectory(t *testing.T) {
	if _, err := Open(t.TempDir(), "", 0); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("Open(directory) = %v, want EISDIR", err)
	}
}

// TestOpenPipe spools what is not a regular file into an unlinked file:
// the temporary directory stays empty.
func TestOpenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write([]byte("streamed")); w.Close() }()
	tmp := t.TempDir()
	s, err := Open("/dev/fd/"+strconv.Itoa(int(r.Fd())), tmp, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, _ := io.ReadAll(io.NewSectionReader(s.R, 0, s.Size))
	if string(b) != "streamed" {
		t.Fatalf("spooled %q", b)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("spool left %d names in the temporary directory", len(left))
	}
}

// A stream longer than the bound is refused once the bound is passed,
// not read to its end: /dev/zero has none.
func TestOpenStreamBounded(t *testing.T) {
	tmp := t.TempDir()
	_, err := Open("/dev/zero", tmp, 1<<20)
	var se *SpoolError
	if !errors.As(err, &se) || se.Max != 1<<20 {
		t.Fatalf("Open(/dev/zero) = %v, want a SpoolError at 1 MiB", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("spool left %d names in the temporary directory", len(left))
	}
	in, err := OpenInput("/dev/zero", InputOptions{TempDir: tmp, Limit: 4096, LimitHint: "raise it with --flag"})
	if err == nil {
		in.Close()
	}
	if err == nil || err.Error() != "not a regular file, and longer than 4096 bytes, the most read from such an input; raise it with --flag" {
		t.Fatalf("OpenInput(/dev/zero) = %v, want the input's limit and hint", err)
	}
}

func TestTempsCloseFrom(t *testing.T) {
	temps := Temps{Dir: t.TempDir(), Pattern: "t-*"}
	a, _ := temps.New()
	mark := temps.Len()
	b, _ := temps.New()
	c, _ := temps.New()
	temps.Release(c)
	temps.CloseFrom(mark)
	if _, err := b.Write([]byte("x")); err == nil {
		t.Fatal("a file made after the mark is still open")
	}
	if _, err := a.Write([]byte("x")); err != nil {
		t.Fatalf("a file made before the mark was closed: %v", err)
	}
	if temps.Len() != 1 {
		t.Fatalf("Len = %d after CloseFrom, want 1", temps.Len())
	}
	temps.Close()
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("Close left a file open")
	}
	if left, _ := os.ReadDir(temps.Dir); len(left) != 0 {
		t.Fatalf("%d names left in the temporary directory", len(left))
	}
}
