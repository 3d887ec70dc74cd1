package extract_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/extract"
	"github.com/rules-offload/rules_offload/lib/inspect"
)

// A new container format touches one place: a row of the walk's format
// table, here added with RegisterFormat from this file alone. inspect
// describes it and extract finds the images inside it, with nothing of
// theirs changed: both meet its parts through container.Walk.

// toy is a throwaway format: "TOY!", then members, each a little-endian
// u32 name length, the name, a u32 size and the member's bytes.
var toy = container.RegisterFormat("toy", func(head []byte) bool { return bytes.HasPrefix(head, []byte("TOY!")) }, walkToy)

func walkToy(r io.ReaderAt, size int64, visit container.Visit) error {
	for off := int64(4); off < size; {
		var n [4]byte
		if _, err := r.ReadAt(n[:], off); err != nil {
			return fmt.Errorf("toy: member at offset %d: %w", off, err)
		}
		name := make([]byte, binary.LittleEndian.Uint32(n[:])&0xffff)
		if _, err := r.ReadAt(name, off+4); err != nil {
			return fmt.Errorf("toy: member name at offset %d: %w", off+4, err)
		}
		off += 4 + int64(len(name))
		if _, err := r.ReadAt(n[:], off); err != nil {
			return fmt.Errorf("toy: member size at offset %d: %w", off, err)
		}
		m := int64(binary.LittleEndian.Uint32(n[:]))
		if off += 4; m > size-off {
			return fmt.Errorf("toy: member %s past the end", name)
		}
		p := container.Piece{Kind: container.Member, Name: string(name), Offset: off, Size: m, Data: io.NewSectionReader(r, off, m)}
		if err := visit(p); err != nil {
			return err
		}
		off += m
	}
	return nil
}

func toyContainer(members map[string][]byte, order ...string) []byte {
	b := []byte("TOY!")
	for _, name := range order {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
		b = append(b, name...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(members[name])))
		b = append(b, members[name]...)
	}
	return b
}

func TestNewFormatTouchesOnePlace(t *testing.T) {
	id := "hipv4-amdgcn-amd-amdhsa--gfx906"
	bundle := append(hostile.BundleHeader([]string{id}, []int64{4}), "code"...)
	in := toyContainer(map[string][]byte{"k.bundle": bundle, "notes": []byte("plain text")}, "k.bundle", "notes")
	if f, _ := container.Recognise(in[:8]); f != toy || f.String() != "toy" {
		t.Fatalf("recognised as %v, want the toy format", f)
	}

	n := inspect.Inspect(bytes.NewReader(in), int64(len(in)), "in.toy", inspect.Options{})
	if n.Format != "toy" || n.Detail != "2 parts" || len(n.Children) != 2 || n.Children[0].Name != "k.bundle" ||
		n.Children[0].Format != "bundle" || len(n.Children[0].Children) != 1 || n.Children[0].Children[0].Name != id || n.Failed() {
		t.Errorf("inspect: %+v", n)
	}

	w := extract.NewWalker(extract.Options{})
	defer w.Close()
	var found []string
	err := w.Walk(bytes.NewReader(in), int64(len(in)), "in.toy", func(im *extract.Image) error {
		b, _ := io.ReadAll(im.Open())
		found = append(found, strings.Join(im.Where, ": ")+" = "+string(b))
		return nil
	})
	if want := "in.toy: k.bundle: " + id + " = code"; err != nil || len(found) != 1 || found[0] != want {
		t.Errorf("extract: %q, %v; want %q", found, err, want)
	}

	// Damaged, it is described and refused as the other formats are.
	cut := in[:len(in)-3]
	if n := inspect.Inspect(bytes.NewReader(cut), int64(len(cut)), "cut.toy", inspect.Options{}); !strings.Contains(n.Error, "toy: member notes past the end") {
		t.Errorf("inspect of a damaged toy: %+v", n)
	}
	if err := w.Walk(bytes.NewReader(cut), int64(len(cut)), "cut.toy", func(*extract.Image) error { return nil }); err == nil ||
		err.Error() != "cut.toy: toy: member notes past the end" {
		t.Errorf("extract of a damaged toy: %v", err)
	}
}
