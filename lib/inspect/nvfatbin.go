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

// NVIDIA fat binaries (one, or several back to back as in a .nv_fatbin
// section) list their entries: each a cubin or PTX for one sm_XX, stored
// as is or compressed (LZ4 up to CUDA 12, ZSTD too from 12.8), which the
// walk inflates, within its decompression budget, to look inside. A
// cubin's target is its own (cubinTarget): the entry header has the SM
// number only, not the "a" of sm_90a. Entries are
// read one at a time; those before a damaged one are still described, and
// past maxDescribed they are only counted.

// maxDescribed bounds the entries of one fat binary described one by one
// (a node each, and an inflation each when compressed): a hostile
// container packs an entry in every 80 bytes, 2 million of them in the
// 160 MB that a 540 KB CCOB inflates to (19.7 s and 2.3 GB described
// whole). Real fat binaries hold a few dozen.
const maxDescribed = 10000

// enterFatbinEntry makes the node of a fat binary's entry, and says
// whether to look inside: a compressed entry's inflated bytes, or a
// cubin's.
func (w *walker) enterFatbinEntry(p *container.Part) bool {
	i := w.entries[p.Parent]
	w.entries[p.Parent]++
	if i >= maxDescribed {
		return false
	}
	e, space := p.Fatbin, nodeOf(p.Parent).Space
	c := &Node{Format: e.Kind.String(), Name: p.Name, Offset: p.At, Size: e.Size, Space: space,
		Detail: fmt.Sprintf("%s, code version %d.%d", e.ArchName(), e.Major, e.Minor)}
	inside := false
	switch {
	case e.Compressed:
		c.Detail += fmt.Sprintf(", compressed by NVIDIA with %s (%d bytes inflated)", e.Compression, e.UncompressedSize)
		inside = true
	case e.Kind == nvfatbin.KindELF:
		w.targets[p] = cubinTarget(p.Data, p.Size, e, e.ArchName())
		c, inside = w.node(p, space)
	}
	p.Tag = c
	return inside
}

// leaveFatbinEntry describes a fat binary's entry once what it holds is
// described: a compressed entry that did not inflate (its declared size
// refused by the budget, which names the entry; a decoding error, which
// gives its own offset, after the fat binary's) says why.
func (w *walker) leaveFatbinEntry(p *container.Part, err error, inside bool) *Node {
	c := nodeOf(p)
	if c == nil {
		return nil
	}
	e := p.Fatbin
	target, ok := w.targets[p]
	if !ok {
		target = e.ArchName()
	}
	delete(w.targets, p)
	switch {
	case e.Compressed && err != nil:
		at, space := p.Parent.At, nodeOf(p.Parent).Space
		if errors.Is(err, budget.ErrExceeded) {
			at += e.Offset
		}
		c.Error = fmt.Sprintf("at offset %d (%s): %v", at, space, err)
	case !e.Compressed && e.Kind == nvfatbin.KindELF:
		if inside {
			c = w.describe(p, c, err)
		}
		c.Name, c.Detail = p.Name, fmt.Sprintf("cubin for %s, code version %d.%d", target, e.Major, e.Minor)
	}
	c.Entry = &Entry{OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", Arch: target, TargetID: target, ImageKind: imageKindOf(e.Kind)}
	return c
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

// describeFatbin counts a fat binary's entries in its detail.
func (w *walker) describeFatbin(p *container.Part, n *Node, err error) {
	i := w.entries[p]
	delete(w.entries, p)
	n.Detail = fmt.Sprintf("NVIDIA fat binary, %d entries", i)
	if i > maxDescribed {
		n.Children = append(n.Children, &Node{Format: "data", Name: fmt.Sprintf("entries %d to %d", maxDescribed, i-1),
			Offset: -1, Space: n.Space, Detail: fmt.Sprintf("%d more entries, checked but not described one by one", i-maxDescribed)})
	}
	if err != nil {
		// Where the fat binary starts; its reader's error says where in
		// it the damage is (fail would print that offset instead).
		n.Error = fmt.Sprintf("in %s at offset %d: %v", n.Format, p.At, err)
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
