package budget

import (
	"errors"
	"strings"
	"testing"
)

func TestReserveUntilFull(t *testing.T) {
	b := New(100)
	for i, n := range []uint64{40, 60} {
		if err := b.Reserve(n); err != nil {
			t.Fatalf("reservation %d (%d bytes): %v", i, n, err)
		}
	}
	err := b.Reserve(1)
	var ee *ExceededError
	if !errors.As(err, &ee) || !errors.Is(err, ErrExceeded) {
		t.Fatalf("Reserve past the limit: got %v, want an *ExceededError", err)
	}
	if ee.Want != 1 || ee.Used != 100 || ee.Limit != 100 {
		t.Errorf("error fields = %+v, want Want 1, Used 100, Limit 100", *ee)
	}
	if b.Used() != 100 {
		t.Errorf("a refused reservation changed Used to %d", b.Used())
	}
}

func TestHugeReservationDoesNotWrap(t *testing.T) {
	b := New(1 << 20)
	if err := b.Reserve(10); err != nil {
		t.Fatal(err)
	}
	// used+n would overflow uint64; the check must not.
	if err := b.Reserve(^uint64(0) - 5); err == nil {
		t.Fatal("a reservation near 2^64 was accepted")
	}
}

func TestDefaultAndNil(t *testing.T) {
	if got := New(0).Limit(); got != DefaultLimit {
		t.Errorf("New(0).Limit() = %d, want %d", got, DefaultLimit)
	}
	var b *Budget
	if err := b.Reserve(^uint64(0)); err != nil {
		t.Errorf("nil budget refused a reservation: %v", err)
	}
	if b.Used() != 0 || b.Limit() != 0 {
		t.Errorf("nil budget: Used %d, Limit %d, want 0, 0", b.Used(), b.Limit())
	}
}

func TestCheckTakesNothing(t *testing.T) {
	b := New(100)
	if err := b.Check(100); err != nil {
		t.Fatalf("Check(100) of an empty budget of 100: %v", err)
	}
	if err := b.Check(101); !errors.Is(err, ErrExceeded) {
		t.Fatalf("Check(101): got %v, want ErrExceeded", err)
	}
	if b.Used() != 0 {
		t.Fatalf("Check changed Used to %d", b.Used())
	}
}

// The hint the command sets ends every refusal, so the user learns how to
// raise the limit.
func TestHintEndsErrors(t *testing.T) {
	b := New(10)
	b.SetHint("raise it with --max-uncompressed-size")
	for _, err := range []error{b.Check(11), b.Reserve(11)} {
		if err == nil || !strings.HasSuffix(err.Error(), "would exceed 10 bytes for this input (0 already inflated, 11 more declared); raise it with --max-uncompressed-size") {
			t.Errorf("got %v, want the limit, the sizes and the hint", err)
		}
	}
	var nilBudget *Budget
	nilBudget.SetHint("ignored") // must not panic
}
