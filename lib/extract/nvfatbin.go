package extract

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// nvFatbin hands on the entries of NVIDIA fat binaries: cubins and PTX,
// as `cuobjdump -xelf`/`-xptx` writes them (a cubin without the padding
// after it, PTX without its NUL). Compressed entries (nvcc and fatbinary
// compress PTX by default) are inflated into temporary files, as CCOBs
// are: their declared sizes together are checked against the input's
// budget before the first is decoded, and each is charged to it before
// it is.
func (w *Walker) nvFatbin(r io.ReaderAt, size int64, where []string, fn func(*Image) error) error {
	es, err := nvfatbin.ReadAll(r, size)
	if err != nil {
		return err
	}
	declared := uint64(0)
	for i := range es {
		if es[i].Compressed {
			declared += uint64(es[i].UncompressedSize)
		}
	}
	if err := w.budget.Check(declared); err != nil {
		return fmt.Errorf("compressed fat binary entries: %w", err)
	}
	for i := range es {
		if err := w.nvEntry(r, &es[i], with(where, fmt.Sprintf("entry %d", i)), fn); err != nil {
			return err
		}
	}
	return nil
}

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
