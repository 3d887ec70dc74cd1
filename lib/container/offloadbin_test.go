package container

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

func offloadBinary(t *testing.T, comp offloadbin.Compression, images ...string) []byte {
	t.Helper()
	var es []offloadbin.Entry
	for _, im := range images {
		es = append(es, offloadbin.Entry{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadOpenMP,
			Strings: []offloadbin.KV{{Key: "arch", Value: "gfx906"}, {Key: "triple", Value: "amdgcn-amd-amdhsa"}},
			Image:   strings.NewReader(im), Size: int64(len(im))})
	}
	var b bytes.Buffer
	if _, err := offloadbin.WriteEntries(&b, 3, es, comp); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func walkOffload(t *testing.T, b []byte, bud *budget.Budget) ([]string, error) {
	t.Helper()
	var got []string
	spill := func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "spill") }
	err := OffloadBinaries(bytes.NewReader(b), int64(len(b)), bud, spill, func(p Piece) error {
		data, err := io.ReadAll(p.Data)
		if err != nil || p.Kind != Image || p.Image == nil || p.Image.Arch() != "gfx906" {
			t.Fatalf("piece %+v: %v", p, err)
		}
		got = append(got, p.Name+"="+string(data))
		return nil
	})
	return got, err
}

// TestOffloadBinaryPieces: images of plain and compressed binaries are
// visited with their bytes; inside compressed data a compressed binary
// is refused from its header (budget.ErrNested) unless nesting is allowed.
func TestOffloadBinaryPieces(t *testing.T) {
	want := "image 0=one image 1=two"
	for _, comp := range []offloadbin.Compression{offloadbin.NoCompression, offloadbin.Zstd} {
		got, err := walkOffload(t, offloadBinary(t, comp, "one", "two"), budget.New(0))
		if err != nil || strings.Join(got, " ") != want {
			t.Fatalf("compression %v: got %q, %v; want %q", comp, got, err, want)
		}
	}
	inside := budget.New(0)
	if err := inside.Enter(budget.Container); err != nil {
		t.Fatal(err)
	}
	got, err := walkOffload(t, offloadBinary(t, offloadbin.Zstd, "one"), inside)
	if !errors.Is(err, budget.ErrNested) || len(got) != 0 {
		t.Fatalf("nested: got %q, %v; want budget.ErrNested", got, err)
	}
	inside.AllowNested()
	if got, err = walkOffload(t, offloadBinary(t, offloadbin.Zstd, "one"), inside); err != nil || len(got) != 1 {
		t.Fatalf("nested, allowed: got %q, %v", got, err)
	}
}
