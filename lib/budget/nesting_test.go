package budget

import (
	"errors"
	"testing"
)

// The rule: a container inside compressed data is refused unless nesting
// is allowed; a format's own compressed entries are decoded at any depth,
// and what they hold is inside compressed data.
func TestNestingRule(t *testing.T) {
	b := New(0)
	if err := b.Enter(Container); err != nil || b.Refuses(Entry) {
		t.Fatalf("top level: %v", err)
	}
	if !b.Refuses(Container) || !errors.Is(b.Enter(Container), ErrNested) {
		t.Fatal("a container in a container was not refused")
	}
	if err := b.Enter(Entry); err != nil {
		t.Fatalf("a fat binary entry in a container: %v", err)
	}
	b.Leave()
	b.Leave()
	if b.Refuses(Container) {
		t.Fatal("refused after leaving")
	}
	if err := b.Enter(Entry); err != nil || !b.Refuses(Container) {
		t.Fatal("a container inside an inflated entry was not refused")
	}
	b.Leave()
	allowed := New(0)
	allowed.AllowNested()
	allowed.Enter(Container)
	if err := allowed.Enter(Container); err != nil {
		t.Fatalf("allowed nesting: %v", err)
	}
	var none *Budget
	if none.Refuses(Container) || none.Enter(Container) != nil {
		t.Fatal("a nil budget refused")
	}
}
