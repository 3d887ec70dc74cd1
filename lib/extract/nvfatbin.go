package extract

import (
	"bytes"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// nvFatbin hands on the entries of NVIDIA fat binaries: cubins and PTX,
// as `cuobjdump -xelf`/`-xptx` writes them (a cubin without the padding
// after it, PTX without its NUL). Compressed entries (nvcc and fatbinary
// compress PTX by default) are inflated into temporary files, as CCOBs
// are: their declared sizes together are checked against the input's
// budget before the first is decoded, and each is charged to it before
// it is. The entries are read twice, one at a time (nvfatbin.Scan), never
// held: once to check them all and sum what they declare, once to hand
// them on.
func (w *Walker) nvFatbin(r io.ReaderAt, size int64, where []string, fn func(*Image) error) error {
	declared, err := container.NVFatbinDeclared(r, size)
	if err != nil {
		return err
	}
	if err := w.budget.Check(declared); err != nil {
		return fmt.Errorf("compressed fat binary entries: %w", err)
	}
	return container.NVFatbin(r, size, func(p container.Piece) error {
		return w.nvEntry(r, p.Fatbin, with(where, p.Name), fn)
	})
}

// inflateInMemory is the largest compressed entry inflated into memory
// rather than a temporary file: a file per entry costs a file descriptor
// and a few system calls each, which a fat binary of many small entries
// (one every 80 bytes) multiplies.
const inflateInMemory = 64 << 10

func (w *Walker) nvEntry(r io.ReaderAt, e *nvfatbin.Entry, where []string, fn func(*Image) error) error {
	kind := offloadbin.ImagePTX
	if e.Kind == nvfatbin.KindELF {
		kind = offloadbin.ImageCubin
	}
	im := &Image{
		Where: where, OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda",
		TargetID: e.ArchName(), ImageKind: kind,
	}
	if !e.Compressed {
		im.Size, im.data = e.ImageSize(e.Open(r), e.Size), e.Open(r)
		return w.handOn(im, fn)
	}
	if err := w.budget.Reserve(uint64(e.UncompressedSize)); err != nil {
		return err
	}
	if e.UncompressedSize <= inflateInMemory {
		var b bytes.Buffer
		if err := e.Inflate(r, &b); err != nil {
			return err
		}
		im.Size, im.data = e.ImageSize(bytes.NewReader(b.Bytes()), int64(b.Len())), bytes.NewReader(b.Bytes())
		return fn(im)
	}
	tmp, err := w.tempFile()
	if err != nil {
		return err
	}
	if err := e.Inflate(r, tmp); err != nil {
		return err
	}
	im.Size, im.data = e.ImageSize(tmp, e.UncompressedSize), tmp
	if err := w.handOn(im, fn); err != nil {
		return err
	}
	w.release(tmp)
	return nil
}
