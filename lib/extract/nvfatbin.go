package extract

import (
	"fmt"
	"io"
	"os"

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
// rather than a temporary file (container.InflateFatbinEntry): a fat
// binary may hold an entry every 80 bytes.
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
	var spilled *os.File
	data, err := container.InflateFatbinEntry(r, e, w.budget, inflateInMemory, func() (*os.File, error) {
		f, err := w.tempFile()
		spilled = f
		return f, err
	})
	if err != nil {
		return err
	}
	im.Size, im.data = e.ImageSize(data, e.UncompressedSize), data
	if spilled == nil {
		return fn(im) // a reader of its own, never a repeat: handOn would keep its bytes for the whole walk
	}
	if err := w.handOn(im, fn); err != nil {
		return err
	}
	w.release(spilled)
	return nil
}
