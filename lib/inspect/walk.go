package inspect

import (
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
)

// Options tune an inspection.
type Options struct {
	// MaxDepth bounds nesting; 0 means 16.
	MaxDepth int
	// MaxUncompressedSize bounds the bytes decompressed from the input, in
	// total over all its compressed records and nesting levels; 0 means
	// budget.DefaultLimit. Records past it are reported, not decoded.
	MaxUncompressedSize uint64
	// AllowNestedCompression decodes compressed containers found inside
	// compressed data; by default they are reported, not decoded (the rule,
	// fat binaries' compressed entries included: budget.Layer).
	AllowNestedCompression bool
	// TempDir is where large compressed payloads are inflated.
	TempDir string
	// KeepCompressed is how many leading bytes of each decompressed payload
	// are kept in memory to look inside; a payload whose walk needs more is
	// decoded again into an unlinked file in TempDir. 0 means 16 MiB.
	KeepCompressed int
}

// File inspects the file at path.
func File(path string, opt Options) (*Node, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return Inspect(f, fi.Size(), path, opt), nil
}

// Inspect describes the size bytes of r, a file called name.
func Inspect(r io.ReaderAt, size int64, name string, opt Options) *Node {
	w := newWalker(opt)
	defer w.temps.Close()
	n := w.walk(r, size, name)
	n.Name = name
	nameReferences(n)
	return n
}

// walker describes what container.Walk meets: each part becomes a node
// (its Tag), attached to its parent's once it is described.
type walker struct {
	opt    Options
	ccobs  int             // payloads decompressed so far (decompressed#N)
	budget *budget.Budget  // also counts the compressed data the walk is inside
	temps  container.Temps // spilled payloads, closed once described
	root   *Node
	opened map[*container.Part]bool // looked inside: described once left
	// What a container's description needs once its parts are walked: the
	// records of a compressed sequence, where each record's payload is
	// numbered, and how many entries a fat binary has.
	recs    map[*container.Part][]*Node
	spaces  map[*container.Part]string
	entries map[*container.Part]int
	targets map[*container.Part]string // a fat binary entry's cubin's own target
}

func newWalker(opt Options) *walker {
	if opt.MaxDepth == 0 {
		opt.MaxDepth = 16
	}
	if opt.KeepCompressed == 0 {
		opt.KeepCompressed = 16 << 20
	}
	w := &walker{opt: opt, budget: budget.New(opt.MaxUncompressedSize), opened: map[*container.Part]bool{},
		recs: map[*container.Part][]*Node{}, spaces: map[*container.Part]string{}, entries: map[*container.Part]int{},
		targets: map[*container.Part]string{}}
	w.temps = container.Temps{Dir: opt.TempDir, Pattern: "offload-inspect-*"}
	w.budget.SetHint("raise the limit with --max-uncompressed-size")
	if opt.AllowNestedCompression {
		w.budget.AllowNested()
	}
	return w
}

// walk describes the size bytes of r. Every error is a node's: the walk
// itself never fails.
func (w *walker) walk(r io.ReaderAt, size int64, name string) *Node {
	container.Walk(r, size, name, container.WalkOptions{
		MaxDepth: w.opt.MaxDepth, Budget: w.budget, Temps: &w.temps, Prefix: w.opt.KeepCompressed,
		KeepMismatched: true, InflateInMemory: int64(w.opt.KeepCompressed), MaxText: maxTextBundle,
	}, w)
	return w.root
}

// view is where a part's bytes are: size bytes at offset base of the
// address space called space.
type view struct {
	base  int64
	size  int64
	space string
}

func (w *walker) view(p *container.Part) view {
	return view{base: p.At, size: p.Size, space: nodeOf(p).Space}
}

func nodeOf(p *container.Part) *Node {
	n, _ := p.Tag.(*Node)
	return n
}

// Enter makes p's node, and says whether to look inside p.
func (w *walker) Enter(p *container.Part) (bool, error) {
	switch p.Kind {
	case container.Record:
		return w.enterRecord(p), nil
	case container.FatbinEntry:
		inside := w.enterFatbinEntry(p)
		if inside {
			w.opened[p] = true
		}
		return inside, nil
	}
	space := w.space(p)
	var n *Node
	inside := false
	switch {
	case p.Kind == container.HostMarker:
		n = &Node{Format: "host-marker", Offset: p.At, Size: 1, Space: space, Detail: "the object itself is the host entry"}
	case p.Kind == container.Entry && p.Offset < 0: // a text bundle's, read into memory
		n = &Node{Format: "text", Name: p.Name, Size: p.Size, Space: space, Offset: -1}
	case p.Kind == container.Image && p.Image.Compressed:
		n = &Node{Format: "data", Offset: p.Image.Offset, Size: p.Size, Space: "inflated", Detail: "inside a compressed OffloadBinary"}
	case p.Kind == container.Payload && p.Parent.Kind == container.FatbinEntry:
		e := p.Parent.Fatbin
		w.targets[p.Parent] = cubinTarget(p.Data, p.Size, e, e.ArchName())
		w.ccobs++
		n, inside = w.node(p, fmt.Sprintf("decompressed#%d", w.ccobs))
	default:
		n, inside = w.node(p, space)
	}
	p.Tag = n
	if inside {
		w.opened[p] = true
	}
	return inside, nil
}

// space is the address space p's offsets are in: its parent's, or the
// one its record's payload was numbered.
func (w *walker) space(p *container.Part) string {
	if p.Kind == container.Payload && p.Parent.Kind == container.Record {
		return w.spaces[p.Parent]
	}
	for q := p.Parent; q != nil; q = q.Parent {
		if n := nodeOf(q); n != nil {
			return n.Space
		}
	}
	return "file"
}

// node recognises the bytes of p and makes its node; inside says whether
// it is a container to look inside.
func (w *walker) node(p *container.Part, space string) (*Node, bool) {
	n := &Node{Offset: p.At, Size: p.Size, Space: space}
	if first, ok := p.Same.(*Node); ok {
		return reference(n, first), false
	}
	if p.TooDeep {
		n.Format, n.Error = "data", fmt.Sprintf("nesting deeper than %d levels: not examined", w.opt.MaxDepth)
		return n, false
	}
	if p.Size == 0 {
		n.Format = "empty"
		return n, false
	}
	if p.Format == container.FormatNone {
		n.Format, n.Detail = leafKind(headOf(p.Data, 4096))
		if n.Format == "bitcode" {
			bitcodeModules(n, view{p.At, p.Size, space}, p.Data)
		}
		return n, false
	}
	n.Format = p.Format.String()
	return n, true
}

// Leave describes p now that its parts are (its format's detail, its
// error), names it as its parent's part, and attaches it to its parent.
func (w *walker) Leave(p *container.Part, err error) error {
	inside := w.opened[p]
	if inside {
		delete(w.opened, p)
	}
	n := nodeOf(p)
	switch {
	case p.Kind == container.Record:
		w.leaveRecord(p, err)
		return nil
	case p.Kind == container.FatbinEntry:
		n = w.leaveFatbinEntry(p, err, inside)
	case inside:
		n = w.describe(p, n, err)
	}
	if n == nil {
		return nil
	}
	named(p, n)
	w.attach(p, n)
	return nil
}

// named names n as what p is in its container.
func named(p *container.Part, n *Node) {
	switch p.Kind {
	case container.Entry:
		n.Name, n.Entry = p.Name, bundleEntry(p.Name)
	case container.Image:
		n.Name, n.Entry = p.Name, imageEntry(p.Image)
	case container.Member:
		n.Name = p.Name
	case container.Section, container.EntrySection, container.HostMarker:
		n.Name = p.Name
		if p.Kind != container.Section {
			n.Entry = bundleEntry(p.EntryID())
			n.Name = n.Entry.ID
		}
		if n.Detail == "" {
			n.Detail = "section " + p.Name
		} else {
			n.Detail = "section " + p.Name + ": " + n.Detail
		}
	}
}

// attach adds n to the node of p's container; n is the root's.
func (w *walker) attach(p *container.Part, n *Node) {
	for q := p.Parent; q != nil; q = q.Parent {
		if c := nodeOf(q); c != nil {
			c.Children = append(c.Children, n)
			return
		}
	}
	w.root = n
}

func headOf(r io.ReaderAt, n int) []byte {
	b := make([]byte, n)
	k, _ := r.ReadAt(b, 0)
	return b[:k]
}

// fail records where parsing stopped. Errors that carry an offset relative
// to the view are turned into absolute offsets.
func fail(n *Node, v view, err error) {
	if off, ok := container.ErrorOffset(err); ok {
		n.Error = fmt.Sprintf("at offset %d (%s): %v", v.base+off, v.space, err)
		return
	}
	n.Error = fmt.Sprintf("in %s at offset %d: %v", n.Format, v.base, err)
}
