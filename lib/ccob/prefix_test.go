package ccob

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// firstN keeps the first n bytes written, then says ErrEnough.
type firstN struct {
	buf []byte
	n   int
}

func (f *firstN) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p[:min(len(p), f.n-len(f.buf))]...)
	if len(f.buf) >= f.n {
		return len(p), ErrEnough
	}
	return len(p), nil
}

// A record declaring 4 GiB (hostile.CCOB: 4 GiB of zeros after "head")
// yields its first bytes at once, its span is the record's, and the
// budget is charged what it declares.
func TestDecompressPrefixStopsEarly(t *testing.T) {
	for _, rec := range [][]byte{hostile.CCOB([]byte("head"), 4<<30-4), hostile.CCOBZlib([]byte("head and more"))} {
		in := append(append([]byte(nil), rec...), 0, 0, 0, 0)
		b := budget.New(0)
		w := &firstN{n: 4}
		start := time.Now()
		h, span, whole, err := DecompressPrefix(w, bytes.NewReader(in), int64(len(in)), ReaderOptions{Budget: b})
		if err != nil || string(w.buf) != "head" || span != int64(len(rec)) || whole || b.Used() != h.UncompressedSize {
			t.Fatalf("got %q, span %d of %d, whole %v, budget used %d of %d: %v", w.buf, span, len(rec), whole, b.Used(), h.UncompressedSize, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	}
	// A writer that wants it all gets it all, size checked.
	var all bytes.Buffer
	rec := hostile.CCOBZlib([]byte("short"))
	if _, _, whole, err := DecompressPrefix(&all, bytes.NewReader(rec), int64(len(rec)), ReaderOptions{}); err != nil || !whole || all.String() != "short" {
		t.Fatalf("whole %v, %q: %v", whole, all.String(), err)
	}
	// Over the limit: refused before decoding, as Decompress does.
	big := hostile.CCOB(nil, 1<<30)
	if _, _, _, err := DecompressPrefix(&firstN{n: 1}, bytes.NewReader(big), int64(len(big)), ReaderOptions{MaxUncompressedSize: 1 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}
