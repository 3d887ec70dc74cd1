package container

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// InflateFatbinEntry inflates small entries into memory and larger ones
// into a spill file, charging the budget what they declare; an entry
// declaring more than the budget holds is refused before it is decoded,
// and one declaring more than it inflates to is an error.
func TestInflateFatbinEntry(t *testing.T) {
	lit := []byte("ptx text")
	fb := hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 1, Arch: 90, Header: 72, Payload: hostile.LZ4Literals(lit), Inflated: len(lit)},
		{Kind: 1, Arch: 90, Header: 72, Payload: hostile.LZ4Literals(lit), Inflated: len(lit) + 1},
	})
	es, err := nvfatbin.ReadAll(bytes.NewReader(fb), int64(len(fb)))
	if err != nil {
		t.Fatal(err)
	}
	temps := Temps{Dir: t.TempDir()}
	defer temps.Close()
	for _, inMemory := range []int64{int64(len(lit)), int64(len(lit)) - 1} {
		b := budget.New(0)
		r, err := InflateFatbinEntry(bytes.NewReader(fb), &es[0], b, inMemory, temps.New)
		got := make([]byte, len(lit))
		if err == nil {
			_, err = r.ReadAt(got, 0)
		}
		_, spilled := r.(*os.File)
		if err != nil || !bytes.Equal(got, lit) || spilled != (inMemory < int64(len(lit))) || b.Used() != uint64(len(lit)) {
			t.Errorf("in memory up to %d: read %q (spilled %v), %v, budget used %d", inMemory, got, spilled, err, b.Used())
		}
	}
	spill := func() (*os.File, error) { t.Fatal("spilled before charging"); return nil, nil }
	if _, err := InflateFatbinEntry(bytes.NewReader(fb), &es[0], budget.New(3), 0, spill); !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("over budget: %v; want budget.ErrExceeded", err)
	}
	if _, err := InflateFatbinEntry(bytes.NewReader(fb), &es[1], budget.New(0), 1<<20, temps.New); !errors.Is(err, nvfatbin.ErrFormat) {
		t.Errorf("declared one byte more than inflated: %v; want nvfatbin.ErrFormat", err)
	}
}
