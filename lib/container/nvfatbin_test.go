package container

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// TestNVFatbinPieces: entries come in order with their stored bytes and
// fat binary entry; the compressed ones' declared sizes are summed; a
// truncated fat binary is an error after the binaries before it.
func TestNVFatbinPieces(t *testing.T) {
	lit := []byte("0123456789abcdef")
	fb := hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 2, Arch: 70, Header: 72, Payload: []byte("cubin70!")},
		{Kind: 1, Arch: 90, Header: 72, Payload: hostile.LZ4Literals(lit), Inflated: len(lit)},
	})
	var got []string
	walk := func(b []byte) error {
		got = nil
		r := bytes.NewReader(b)
		return NVFatbin(r, int64(len(b)), func(p Piece) error {
			data, _ := io.ReadAll(p.Data)
			got = append(got, fmt.Sprintf("%s=sm_%d:%v:%d", p.Name, p.Fatbin.Arch, p.Fatbin.Compressed, len(data)))
			return nil
		})
	}
	if err := walk(fb); err != nil || strings.Join(got, " ") != fmt.Sprintf("entry 0=sm_70:false:8 entry 1=sm_90:true:%d", len(hostile.LZ4Literals(lit))) {
		t.Fatalf("got %q, %v", got, err)
	}
	if d, err := NVFatbinDeclared(bytes.NewReader(fb), int64(len(fb))); err != nil || d != uint64(len(lit)) {
		t.Fatalf("declared %d, %v; want %d", d, err, len(lit))
	}
	// Two back to back, the second cut short.
	two := append(append([]byte(nil), fb...), fb[:len(fb)-4]...)
	if err := walk(two); err == nil || len(got) != 2 {
		t.Fatalf("truncated: got %q, %v; want the first binary's entries and an error", got, err)
	}
}
