package extract

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// nvFatbin hands on the entries of NVIDIA fat binaries that are stored as
// is: cubins and PTX. Entries compressed with NVIDIA's own scheme (nvcc
// compresses PTX by default) are left out: this package does not decode
// that scheme, and a compressed image handed on as if it were the image
// would mislead; offload inspect lists them.
func (w *Walker) nvFatbin(r io.ReaderAt, size int64, where []string, fn func(*Image) error) error {
	es, err := nvfatbin.ReadAll(r, size)
	if err != nil {
		return err
	}
	for i := range es {
		e := &es[i]
		if e.Compressed {
			continue
		}
		kind := offloadbin.ImagePTX
		if e.Kind == nvfatbin.KindELF {
			kind = offloadbin.ImageCubin
		}
		im := &Image{
			Where: with(where, fmt.Sprintf("entry %d", i)), OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda",
			TargetID: e.ArchName(), ImageKind: kind, Size: e.Size, data: e.Open(r),
		}
		if err := fn(im); err != nil {
			return err
		}
	}
	return nil
}
