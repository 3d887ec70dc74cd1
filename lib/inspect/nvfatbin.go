package inspect

import (
	"bytes"
	"fmt"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// nvFatbin lists the entries of NVIDIA fat binaries (one, or several back
// to back as in a .nv_fatbin section): each a cubin or PTX for one sm_XX,
// stored as is or compressed with NVIDIA's own scheme (LZ4), which is
// inflated, within the walk's decompression budget, to look inside.
func (w *walker) nvFatbin(n *Node, v view, depth int) {
	n.Format = "cuda-fatbin"
	es, err := nvfatbin.ReadAll(v.r, v.size)
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = fmt.Sprintf("NVIDIA fat binary, %d entries", len(es))
	for i := range es {
		e := &es[i]
		c := &Node{Format: e.Kind.String(), Name: fmt.Sprintf("entry %d", i), Offset: v.base + e.Offset, Size: e.Size, Space: v.space,
			Detail: fmt.Sprintf("%s, code version %d.%d", e.ArchName(), e.Major, e.Minor)}
		if e.Compressed {
			c.Detail += fmt.Sprintf(", compressed by NVIDIA (%d bytes inflated)", e.UncompressedSize)
			w.nvInflated(c, v, e, depth)
		} else if e.Kind == nvfatbin.KindELF {
			c = w.node(v.sub(e.Offset, e.Size), depth+1)
			c.Name, c.Detail = fmt.Sprintf("entry %d", i), fmt.Sprintf("cubin for %s, code version %d.%d", e.ArchName(), e.Major, e.Minor)
		}
		c.Entry = &Entry{OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", Arch: e.ArchName(), TargetID: e.ArchName(), ImageKind: imageKindOf(e.Kind)}
		n.Children = append(n.Children, c)
	}
}

// nvInflated inflates a compressed entry into a bounded prefix (as
// compressed does for CCOB) and describes what it holds under c. The
// declared size is taken from the budget first, so a hostile size fails
// before anything is decoded.
func (w *walker) nvInflated(c *Node, v view, e *nvfatbin.Entry, depth int) {
	if w.refuseNested() {
		c.Error = errNested.Error()
		return
	}
	if err := w.budget.Reserve(uint64(e.UncompressedSize)); err != nil {
		c.Error = fmt.Sprintf("at offset %d (%s): %v", v.base+e.Offset, v.space, err)
		return
	}
	keep := &prefixWriter{max: w.opt.KeepCompressed}
	if err := e.Inflate(v.r, keep); err != nil {
		c.Error = fmt.Sprintf("at offset %d (%s): %v", v.base, v.space, err)
		return
	}
	w.ccobs++
	inner := view{r: bytes.NewReader(keep.buf), size: int64(len(keep.buf)), space: fmt.Sprintf("decompressed#%d", w.ccobs)}
	if e.Kind == nvfatbin.KindELF {
		inner.size = e.ImageSize(inner.r, inner.size)
	}
	w.inflating++
	defer func() { w.inflating-- }()
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
