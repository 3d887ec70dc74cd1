package inspect

import (
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// nvFatbin lists the entries of NVIDIA fat binaries (one, or several back
// to back as in a .nv_fatbin section): each a cubin or PTX for one sm_XX,
// stored as is or compressed (LZ4 up to CUDA 12, ZSTD too from 12.8), which is
// inflated, within the walk's decompression budget, to look inside.
func (w *walker) nvFatbin(n *Node, v view, depth int) {
	n.Format = "cuda-fatbin"
	// Entries are read one at a time; those before a damaged one are still
	// described, and past maxDescribed they are only counted.
	i := 0
	err := container.NVFatbin(v.r, v.size, func(p container.Piece) error {
		if i < maxDescribed {
			w.nvEntry(n, v, p.Fatbin, i, depth)
		}
		i++
		return nil
	})
	n.Detail = fmt.Sprintf("NVIDIA fat binary, %d entries", i)
	if i > maxDescribed {
		n.Children = append(n.Children, &Node{Format: "data", Name: fmt.Sprintf("entries %d to %d", maxDescribed, i-1),
			Offset: -1, Space: v.space, Detail: fmt.Sprintf("%d more entries, checked but not described one by one", i-maxDescribed)})
	}
	if err != nil {
		fail(n, v, err)
	}
}

// maxDescribed bounds the entries of one fat binary described one by one
// (a node each, and an inflation each when compressed): a hostile
// container packs an entry in every 80 bytes, 2 million of them in the
// 160 MB that a 540 KB CCOB inflates to (19.7 s and 2.3 GB described
// whole). Real fat binaries hold a few dozen.
const maxDescribed = 10000

// nvEntry describes entry i of a fat binary under n. A cubin's target is
// its own (cubinTarget): the entry header has the SM number only, not the
// "a" of sm_90a.
func (w *walker) nvEntry(n *Node, v view, e *nvfatbin.Entry, i, depth int) {
	c := &Node{Format: e.Kind.String(), Name: fmt.Sprintf("entry %d", i), Offset: v.base + e.Offset, Size: e.Size, Space: v.space,
		Detail: fmt.Sprintf("%s, code version %d.%d", e.ArchName(), e.Major, e.Minor)}
	target := e.ArchName()
	if e.Compressed {
		c.Detail += fmt.Sprintf(", compressed by NVIDIA with %s (%d bytes inflated)", e.Compression, e.UncompressedSize)
		w.nvInflated(c, v, e, depth, &target)
	} else if e.Kind == nvfatbin.KindELF {
		sub := v.sub(e.Offset, e.Size)
		target = cubinTarget(sub.r, sub.size, e, target)
		c = w.node(sub, depth+1)
		c.Name, c.Detail = fmt.Sprintf("entry %d", i), fmt.Sprintf("cubin for %s, code version %d.%d", target, e.Major, e.Minor)
	}
	c.Entry = &Entry{OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", Arch: target, TargetID: target, ImageKind: imageKindOf(e.Kind)}
	n.Children = append(n.Children, c)
}

// cubinTarget is the target the cubin of entry e names in its headers
// ("sm_90a"), or def when it names none, or another SM than the entry's.
func cubinTarget(r io.ReaderAt, size int64, e *nvfatbin.Entry, def string) string {
	if e.Kind != nvfatbin.KindELF {
		return def
	}
	t, err := cubin.Read(r, size)
	if err != nil || t.SM != e.Arch {
		return def
	}
	return t.String()
}

// nvInflated inflates a compressed entry (container.InflateFatbinEntry:
// its declared size is taken from the budget first, so a hostile size
// fails before anything is decoded) and describes what it holds under c;
// a cubin's own target goes to *target.
func (w *walker) nvInflated(c *Node, v view, e *nvfatbin.Entry, depth int, target *string) {
	defer w.temps.CloseFrom(w.temps.Len())
	r, err := container.InflateFatbinEntry(v.r, e, w.budget, int64(w.opt.KeepCompressed), w.spill)
	if err != nil {
		at := v.base // the fat binary: a decoding error gives its own offset in it
		if errors.Is(err, budget.ErrExceeded) {
			at += e.Offset
		}
		c.Error = fmt.Sprintf("at offset %d (%s): %v", at, v.space, err)
		return
	}
	w.ccobs++
	inner := view{r: r, size: e.UncompressedSize, space: fmt.Sprintf("decompressed#%d", w.ccobs)}
	if e.Kind == nvfatbin.KindELF {
		inner.size = e.ImageSize(inner.r, inner.size)
		*target = cubinTarget(inner.r, inner.size, e, *target)
	}
	w.budget.Enter(budget.Entry) // never refused: see budget.Layer
	defer w.budget.Leave()
	c.Children = append(c.Children, w.node(inner, depth+1))
}

func imageKindOf(k nvfatbin.Kind) string {
	switch k {
	case nvfatbin.KindELF:
		return "cubin"
	case nvfatbin.KindPTX:
		return "ptx"
	}
	return "none"
}
