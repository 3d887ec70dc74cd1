package embed

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Checking a compressed binary inflates it to a temporary file, not into
// memory: memory does not grow with the size it declares.
func TestCheckInflatesToDisk(t *testing.T) {
	const size = 256 << 20
	bin := hostile.OffloadBinaryBomb(size, "gfx90a")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := Check(bytes.NewReader(bin), int64(len(bin)))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("checking a binary that inflates to %d bytes allocated %d", size, got)
	}
}
