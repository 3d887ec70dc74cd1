package outbudget

import (
	"errors"
	"strings"
	"testing"
)

func TestDefaultFollowsWhatTheInputsHold(t *testing.T) {
	held := uint64(100)
	b := &Budget{Held: func() uint64 { return held }, Hint: "raise it"}
	if err := b.Charge(slack + 100); err != nil {
		t.Fatalf("what the input holds refused: %v", err)
	}
	err := b.Charge(1)
	if !errors.Is(err, ErrExceeded) || !strings.Contains(err.Error(), "more than 1048676 bytes (what the inputs hold, plus 1 MiB): 1048676 written, 1 more asked; raise it") {
		t.Fatalf("one byte more: %v", err)
	}
	held += 10 // more was decompressed
	if err := b.Charge(10); err != nil {
		t.Errorf("after more was decompressed: %v", err)
	}
}

func TestGivenLimits(t *testing.T) {
	b := &Budget{MaxBytes: 10, MaxFiles: 2}
	if err := b.Charge(10); err != nil {
		t.Fatal(err)
	}
	if err := b.Charge(0); err != nil { // a hard link: a file, no bytes
		t.Fatal(err)
	}
	if err := b.Charge(0); err == nil || !strings.Contains(err.Error(), "more than 2 files") {
		t.Errorf("third file: %v", err)
	}
	b = &Budget{MaxBytes: 10}
	if err := b.Charge(1 << 63); err == nil {
		t.Error("a huge size accepted")
	}
	var nilBudget *Budget
	if nilBudget.Charge(1<<40) != nil {
		t.Error("a nil budget refused")
	}
}
