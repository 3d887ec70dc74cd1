package wrapper

import (
	"errors"
	"runtime"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// A compressed OffloadBinary is no OpenMP image for the wrapper, and it is
// refused from its header: before, its 1 GiB was inflated into memory only
// to be refused.
func TestCompressedImageRefusedUninflated(t *testing.T) {
	im := memImage(hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := inspect(0, im, OpenMP, false)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrWrongImage) {
		t.Fatalf("got %v, want ErrWrongImage", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing the compressed binary allocated %d bytes", got)
	}
}
