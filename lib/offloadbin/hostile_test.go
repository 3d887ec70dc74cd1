package offloadbin

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// Eight compressed binaries declaring ~1 GiB each (the 897 KiB input of the
// robustness review) are refused before any is inflated: the whole section
// is charged first.
func TestBombsSideBySideRefusedBeforeInflating(t *testing.T) {
	one := hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a")
	in := bytes.Repeat(one, 8)
	b := budget.New(0)
	_, err := ReadAll(bytes.NewReader(in), int64(len(in)), WithBudget(b))
	var ee *budget.ExceededError
	if !errors.As(err, &ee) {
		t.Fatalf("ReadAll of 8 bombs: got %v, want a budget error", err)
	}
	if ee.Used != 0 || b.Used() != 0 {
		t.Errorf("the refusal came after inflating %d bytes; want before any", ee.Used)
	}
}

// A binary inflates into a buffer of exactly its declared size: a growing
// buffer would allocate about twice the image.
func TestInflateAllocatesDeclaredSizeOnce(t *testing.T) {
	const size = 48 << 20
	in := hostile.OffloadBinaryBomb(size, "gfx906")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ims, err := ReadAll(bytes.NewReader(in), int64(len(in)))
	runtime.ReadMemStats(&after)
	if err != nil || len(ims) != 1 || ims[0].Size != size {
		t.Fatalf("ReadAll: %v, %d images", err, len(ims))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/4 {
		t.Errorf("inflating %d bytes allocated %d", size, got)
	}
}

// With a spill file, a large binary is inflated to disk, not memory, and
// its images read from there.
func TestInflateSpillsLargeBinaries(t *testing.T) {
	const size = SpillSize + 1<<20
	in := hostile.OffloadBinaryBomb(size, "gfx906")
	var files []*os.File
	spill := func() (*os.File, error) {
		f, err := os.CreateTemp(t.TempDir(), "spill")
		files = append(files, f)
		return f, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ims, err := ReadAll(bytes.NewReader(in), int64(len(in)), WithSpill(spill))
	runtime.ReadMemStats(&after)
	if err != nil || len(ims) != 1 {
		t.Fatalf("ReadAll: %v, %d images", err, len(ims))
	}
	if len(files) != 1 {
		t.Fatalf("%d spill files made, want 1", len(files))
	}
	defer files[0].Close()
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("spilling %d bytes allocated %d in memory", size, got)
	}
	tail := make([]byte, 4096)
	if n, err := ims[0].Open().ReadAt(tail, size-4096); n != 4096 || err != nil || !bytes.Equal(tail, make([]byte, 4096)) {
		t.Errorf("reading the spilled image's end: %d bytes, %v", n, err)
	}
}

// A stream that inflates to more than the header declares is refused, in
// the exact-size buffer and in a spill file alike.
func TestInflateRefusesLongerStream(t *testing.T) {
	in := hostile.OffloadBinaryBomb(1<<20, "gfx906")
	// Declare 8 bytes less than the stream holds.
	le.PutUint64(in[32:], le.Uint64(in[32:])-8)
	_, err := ReadAll(bytes.NewReader(in), int64(len(in)))
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("got %v, want ErrFormat for a body longer than declared", err)
	}
}

// RefuseCompressed refuses a compressed binary from its header: nothing
// is inflated or charged, however much it declares.
func TestRefuseCompressedInflatesNothing(t *testing.T) {
	in := append(hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a"), bytes.Repeat(hostile.OffloadBinaryBomb(16<<20, "gfx906"), 2)...)
	b := budget.New(0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadAll(bytes.NewReader(in), int64(len(in)), WithBudget(b), RefuseCompressed())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCompressed) || !strings.Contains(err.Error(), "declaring 1073737896 bytes inflated") {
		t.Fatalf("got %v, want ErrCompressed naming the declared size", err)
	}
	if b.Used() != 0 {
		t.Errorf("the refused binaries were charged %d bytes", b.Used())
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing allocated %d bytes", got)
	}
	// Uncompressed binaries read as before.
	var plain bytes.Buffer
	e := Entry{ImageKind: ImageObject, OffloadKind: OffloadHIP, Image: bytes.NewReader([]byte("x")), Size: 1}
	if _, err := WriteEntries(&plain, 2, []Entry{e}, NoCompression); err != nil {
		t.Fatal(err)
	}
	if ims, err := ReadAll(bytes.NewReader(plain.Bytes()), int64(plain.Len()), RefuseCompressed()); err != nil || len(ims) != 1 {
		t.Fatalf("an uncompressed binary: %v, %d images", err, len(ims))
	}
}
