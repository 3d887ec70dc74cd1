package packager

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// The members of an archive share one budget: a second member whose
// binaries would fit a budget of their own is refused once the first
// member's have been inflated.
func TestScanBudgetSpansArchiveMembers(t *testing.T) {
	first := hostile.OffloadBinaryBomb(16<<20, "gfx906")
	second := bytes.Repeat(hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a"), 4)
	var lib bytes.Buffer
	err := ar.WriteArchive(&lib, []ar.WriterMember{
		{Name: "a.o", Size: int64(len(first)), Data: bytes.NewReader(first)},
		{Name: "b.o", Size: int64(len(second)), Data: bytes.NewReader(second)},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Scan(bytes.NewReader(lib.Bytes()), int64(lib.Len()), "lib.a")
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Used < 16<<20 || !strings.Contains(err.Error(), "b.o") {
		t.Fatalf("got %v; want b.o refused by the budget the first member drew on", err)
	}
}
