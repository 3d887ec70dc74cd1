package ccob

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// A record that does not fit the input's budget is refused before a byte
// is decoded; one that fits is charged its declared size.
func TestDecompressChargesBudget(t *testing.T) {
	rec := hostile.CCOB([]byte("payload"), 0)
	b := budget.New(10)
	var out bytes.Buffer
	if _, _, err := Decompress(&out, bytes.NewReader(rec), int64(len(rec)), ReaderOptions{Budget: b}); err != nil {
		t.Fatal(err)
	}
	if b.Used() != 7 {
		t.Fatalf("budget used %d after a 7-byte record", b.Used())
	}
	out.Reset()
	_, _, err := Decompress(&out, bytes.NewReader(rec), int64(len(rec)), ReaderOptions{Budget: b})
	if !errors.Is(err, budget.ErrExceeded) || out.Len() != 0 {
		t.Fatalf("second record: %v, %d bytes written; want ErrExceeded and nothing", err, out.Len())
	}
}

// DeclaredSize adds up records stored back to back, across zero padding,
// from their headers alone.
func TestDeclaredSize(t *testing.T) {
	rec := hostile.CCOB(nil, 1<<30)
	in := append(append(append([]byte(nil), rec...), make([]byte, 13)...), rec...)
	in = append(in, hostile.CCOB([]byte("x"), 0)...)
	if got, want := DeclaredSize(bytes.NewReader(in), int64(len(in))), uint64(2<<30+1); got != want {
		t.Fatalf("DeclaredSize = %d, want %d", got, want)
	}
	// A truncated last record still counts up to the last readable header.
	if got := DeclaredSize(bytes.NewReader(in[:len(rec)+20]), int64(len(rec)+20)); got != 1<<30 {
		t.Fatalf("DeclaredSize of a record and padding = %d, want %d", got, 1<<30)
	}
}
