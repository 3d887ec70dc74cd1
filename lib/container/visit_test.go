package container

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/coffobj"
)

// pieces walks with walk and returns what it visited, each as name=bytes.
func pieces(t *testing.T, walk Walker, b []byte) ([]string, error) {
	t.Helper()
	r := bytes.NewReader(b)
	var got []string
	err := walk(r, int64(len(b)), func(p Piece) error {
		data, err := io.ReadAll(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Name+"="+string(data))
		return nil
	})
	return got, err
}

func archiveOf(t *testing.T, names ...string) []byte {
	t.Helper()
	var ms []ar.WriterMember
	for _, n := range names {
		ms = append(ms, ar.WriterMember{Name: n, Size: int64(len(n)), Data: strings.NewReader(n)})
	}
	var b bytes.Buffer
	if err := ar.WriteArchive(&b, ms); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestArchivePieces(t *testing.T) {
	b := archiveOf(t, "a.o", "bb.o", "a-name-longer-than-sixteen.o")
	got, err := pieces(t, Archive, b)
	want := "a.o=a.o bb.o=bb.o a-name-longer-than-sixteen.o=a-name-longer-than-sixteen.o"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	// A member cut short: the members before it are visited, then the
	// archive's typed error (with its offset) comes back unchanged.
	got, err = pieces(t, Archive, b[:len(b)-10])
	var fe *ar.FormatError
	if !errors.As(err, &fe) || len(got) != 2 {
		t.Fatalf("truncated: got %q, %v; want 2 members and an *ar.FormatError", got, err)
	}
}

func TestBinaryBundlePieces(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}
	srcs := []io.Reader{strings.NewReader("host"), strings.NewReader("device")}
	var b bytes.Buffer
	if err := bundle.WriteBinary(&b, ids, []int64{4, 6}, srcs, 1); err != nil {
		t.Fatal(err)
	}
	got, err := pieces(t, BinaryBundle, b.Bytes())
	want := ids[0] + "=host " + ids[1] + "=device"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	// A table that does not fit visits nothing.
	got, err = pieces(t, BinaryBundle, b.Bytes()[:40])
	var fe *bundle.FormatError
	if !errors.As(err, &fe) || len(got) != 0 {
		t.Fatalf("truncated: got %q, %v; want no entries and a *bundle.FormatError", got, err)
	}
}

// TestVisitErrorStops: the visitor's error ends the walk and comes back as
// it is (extract's walk errors rely on that).
func TestVisitErrorStops(t *testing.T) {
	b := archiveOf(t, "a.o", "b.o")
	stop := errors.New("stop")
	calls := 0
	err := Archive(bytes.NewReader(b), int64(len(b)), func(Piece) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Fatalf("got %v after %d calls; want the visitor's error after 1", err, calls)
	}
}

// TestCOFFPieces: only .llvm.offloading* sections with contents in the
// file are visited, in section order.
func TestCOFFPieces(t *testing.T) {
	names := []string{".text", ".llvm.offloading", ".llvm.offload", ".llvm.offloading$b", ".llvm.offloadingX"}
	data := [][]byte{{0xc3}, []byte("one"), []byte("no"), []byte("two"), nil}
	secs := make([]hostile.COFFSection, len(names))
	for i, n := range names {
		secs[i] = hostile.COFFSection{Name: n, Data: data[i]}
	}
	obj, _ := hostile.COFFObject(0x8664, 0, false, secs)
	got, err := pieces(t, COFF, obj)
	want := ".llvm.offloading=one .llvm.offloading$b=two"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	// A header cut short is coffobj's typed error.
	_, err = pieces(t, COFF, obj[:10])
	var fe *coffobj.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("truncated: got %v; want a *coffobj.FormatError", err)
	}
}

// TestTextBundlePieces: entries come with their text; a bundle over the
// caller's limit is a *TextTooLargeError before anything is read.
func TestTextBundlePieces(t *testing.T) {
	b := hostile.TextBundle([]string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}, [][]byte{[]byte("int h;\n"), []byte("int d;\n")})
	f, comment := Recognise(b[:min(64, len(b))])
	if f != FormatTextBundle {
		t.Fatalf("not a text bundle: %q", b)
	}
	walk := func(max int64) Walker {
		return func(r io.ReaderAt, size int64, visit Visit) error { return TextBundle(r, size, comment, max, visit) }
	}
	got, err := pieces(t, walk(1<<20), b)
	want := "host-x86_64-unknown-linux-gnu-=int h;\n hip-amdgcn-amd-amdhsa--gfx906=int d;\n"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	got, err = pieces(t, walk(int64(len(b)-1)), b)
	var big *TextTooLargeError
	if !errors.As(err, &big) || big.Size != int64(len(b)) || len(got) != 0 {
		t.Fatalf("over the limit: got %q, %v; want a *TextTooLargeError", got, err)
	}
}
