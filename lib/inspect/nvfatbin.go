package inspect

import (
	"fmt"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// nvFatbin lists the entries of NVIDIA fat binaries (one, or several back
// to back as in a .nv_fatbin section): each a cubin or PTX for one sm_XX,
// stored as is or compressed with NVIDIA's own scheme, which is reported,
// not decoded.
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
			c.Detail += fmt.Sprintf(", compressed by NVIDIA (%d bytes inflated; not decoded)", e.UncompressedSize)
		} else if e.Kind == nvfatbin.KindELF {
			c = w.node(v.sub(e.Offset, e.Size), depth+1)
			c.Name, c.Detail = fmt.Sprintf("entry %d", i), fmt.Sprintf("cubin for %s, code version %d.%d", e.ArchName(), e.Major, e.Minor)
		}
		c.Entry = &Entry{OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", Arch: e.ArchName(), TargetID: e.ArchName(), ImageKind: imageKindOf(e.Kind)}
		n.Children = append(n.Children, c)
	}
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
