package ar

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Members that all name one long entry of the long-name table, or tails of
// it, share the table's bytes rather than each taking a copy: 2,000 names
// of about 100 KB cost about 200 MB as copies, and stay under 4 MiB here
// (the review's 520 KB archive took 3.1 GB in offload inspect).
func TestLongNamesShared(t *testing.T) {
	const n, nameLen = 2000, 100000
	for _, stride := range []int{0, 3} {
		b := hostile.ArLongNames(n, nameLen, stride)
		var names []string
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		for err == nil {
			var m *Member
			if m, err = r.Next(); err == nil {
				names = append(names, m.Name)
			}
		}
		runtime.ReadMemStats(&after)
		if a := after.TotalAlloc - before.TotalAlloc; err != io.EOF || len(names) != n || a > 4<<20 {
			t.Fatalf("stride %d: %v after %d members, %d MiB allocated", stride, err, len(names), a>>20)
		}
		long := strings.Repeat("A", nameLen)
		for i, name := range names {
			if want := long[(i*stride)%nameLen:]; name != want {
				t.Fatalf("stride %d: member %d named %d bytes, want %d", stride, i, len(name), len(want))
			}
		}
	}
}
