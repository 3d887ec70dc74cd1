package container

import (
	"bytes"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// InflateFatbinEntry inflates the compressed NVIDIA fat-binary entry e of
// r (nvcc and fatbinary compress PTX by default) after charging what it
// declares to b, so that a hostile size is refused (wrapping
// budget.ErrExceeded) before anything is decoded. An entry declaring at
// most inMemory bytes is inflated into memory, a larger one into a file
// from spill, which the caller closes: a file per entry costs a file
// descriptor and a few system calls, which a fat binary of many small
// entries multiplies, and a large one held in memory would make memory
// grow with the input. The reader returned reads the e.UncompressedSize
// bytes it inflates to (the LZ4 decoder refuses any other size); the
// image is their first e.ImageSize.
func InflateFatbinEntry(r io.ReaderAt, e *nvfatbin.Entry, b *budget.Budget, inMemory int64, spill func() (*os.File, error)) (io.ReaderAt, error) {
	if err := b.Reserve(uint64(e.UncompressedSize)); err != nil {
		return nil, err
	}
	if e.UncompressedSize <= inMemory {
		var buf bytes.Buffer
		if err := e.Inflate(r, &buf); err != nil {
			return nil, err
		}
		return bytes.NewReader(buf.Bytes()), nil
	}
	f, err := spill()
	if err != nil {
		return nil, err
	}
	if err := e.Inflate(r, f); err != nil {
		return nil, err
	}
	return f, nil
}
