package regcheck

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
)

// A new container format touches one place in lib/container: a row of the
// walk's format table, here added with RegisterFormat from this file
// alone (as lib/extract's TestNewFormatTouchesOnePlace adds one for
// inspect and extract). The check reads it once a runtime is handed it:
// a row of registered, the table of what each registration call takes.
// Its images are then read as every other format's are, with nothing of
// the check's changed: shared bytes read once, the unit named in errors.

// toy is a throwaway format: "TOY!", a little-endian u32 count, then per
// entry a u32 ID length, the ID, a u32 offset and a u32 size of its bytes
// in the container. Its pieces are bundle entries, named by entry ID.
var toy = container.RegisterFormat("toy", func(head []byte) bool { return bytes.HasPrefix(head, []byte("TOY!")) }, walkToy)

func walkToy(r io.ReaderAt, size int64, visit container.Visit) error {
	u32 := func(off int64) (int64, error) {
		var b [4]byte
		_, err := r.ReadAt(b[:], off)
		return int64(binary.LittleEndian.Uint32(b[:])), err
	}
	n, err := u32(4)
	if err != nil {
		return fmt.Errorf("toy: count: %w", err)
	}
	for i, at := int64(0), int64(8); i < n; i++ {
		k, err := u32(at)
		if err != nil || k > 256 {
			return fmt.Errorf("toy: entry %d: bad ID length", i)
		}
		id := make([]byte, k)
		if _, err := r.ReadAt(id, at+4); err != nil {
			return fmt.Errorf("toy: entry %d: ID: %w", i, err)
		}
		at += 4 + k
		off, err1 := u32(at)
		m, err2 := u32(at + 4)
		if err1 != nil || err2 != nil || off > size || m > size-off {
			return fmt.Errorf("toy: entry %d past the end", i)
		}
		at += 8
		if err := visit(container.Piece{Kind: container.Entry, Name: string(id), Offset: off, Size: m, Data: io.NewSectionReader(r, off, m)}); err != nil {
			return err
		}
	}
	return nil
}

// toyContainer holds one payload that every entry points at.
func toyContainer(payload []byte, ids ...string) []byte {
	head := 8
	for _, id := range ids {
		head += 12 + len(id)
	}
	b := binary.LittleEndian.AppendUint32([]byte("TOY!"), uint32(len(ids)))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(id)))
		b = append(b, id...)
		b = binary.LittleEndian.AppendUint32(b, uint32(head))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	}
	return append(b, payload...)
}

func TestNewFormatTouchesOnePlace(t *testing.T) {
	hip := registered["hip"]
	registered["hip"] = takes{format: toy} // the HIP runtime is handed toys now
	t.Cleanup(func() { registered["hip"] = hip })

	obj := withMachine(fakeCubin(0, nil, []string{"K.kd"}), 224)
	in := toyContainer(obj, "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+")
	rep := check(t, record(unit{"hip", [][]byte{in}, []string{"function K"}}), Options{Targets: map[string][][]string{"hip": {{"gfx906", "gfx90a:xnack+"}}}})
	if !rep.OK() || len(rep.Summary) != 1 || rep.Summary[0] != "hip fat binary #0: gfx906, gfx90a:xnack+; 1 kernels, 0 variables registered" {
		t.Errorf("problems %q, summary %q", rep.Problems, rep.Summary)
	}
	// The two entries over one code object: read once.
	imgs, err := readImages("hip", io.NewSectionReader(bytes.NewReader(in), 0, int64(len(in))), budget.New(0), t.TempDir())
	if err != nil || len(imgs) != 2 || imgs[0].payload != imgs[1].payload {
		t.Errorf("images %v, %v; want two sharing one payload", imgs, err)
	}

	// Damaged, it is refused as the other formats are, the unit named.
	cut := in[:len(in)-3]
	_, err = Check(mustParse(t, record(unit{"hip", [][]byte{cut}, nil})), Options{})
	if want := "hip fat binary 0, image 0: toy: entry 0 past the end"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
