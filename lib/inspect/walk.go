package inspect

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bitcode"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
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
	if opt.MaxDepth == 0 {
		opt.MaxDepth = 16
	}
	if opt.KeepCompressed == 0 {
		opt.KeepCompressed = 16 << 20
	}
	w := &walker{opt: opt, budget: budget.New(opt.MaxUncompressedSize)}
	w.temps = container.Temps{Dir: opt.TempDir, Pattern: "offload-inspect-*"}
	w.budget.SetHint("raise the limit with --max-uncompressed-size")
	if opt.AllowNestedCompression {
		w.budget.AllowNested()
	}
	defer w.temps.Close()
	n := w.node(view{r: r, size: size, space: "file"}, 0)
	n.Name = name
	nameReferences(n)
	return n
}

// view is a window on some bytes: size bytes of r, which start at offset
// base of the address space called space.
type view struct {
	r     io.ReaderAt
	base  int64
	size  int64
	space string
}

func (v view) sub(off, size int64) view {
	return view{r: io.NewSectionReader(v.r, off, size), base: v.base + off, size: size, space: v.space}
}

func (v view) head(n int) []byte {
	if int64(n) > v.size {
		n = int(v.size)
	}
	b := make([]byte, n)
	k, _ := v.r.ReadAt(b, 0)
	return b[:k]
}

type walker struct {
	opt    Options
	ccobs  int
	budget *budget.Budget  // also counts the compressed data the walk is inside
	temps  container.Temps // spilled OffloadBinaries, closed once described
	seen   map[payload]*Node
}

// spill returns an unlinked temporary file for a large compressed
// OffloadBinary.
func (w *walker) spill() (*os.File, error) { return w.temps.New() }

// node recognises the bytes of v and describes them.
func (w *walker) node(v view, depth int) *Node {
	n := &Node{Offset: v.base, Size: v.size, Space: v.space}
	if first := w.described(v, n); first != nil {
		return reference(v, first)
	}
	if depth > w.opt.MaxDepth {
		n.Format, n.Error = "data", fmt.Sprintf("nesting deeper than %d levels: not examined", w.opt.MaxDepth)
		return n
	}
	head := v.head(64)
	if v.size == 0 {
		n.Format = "empty"
		return n
	}
	switch format, comment := container.Recognise(head); format {
	case container.FormatCCOB:
		return w.compressedSeq(n, v, depth)
	case container.FormatBundle:
		w.binaryBundle(n, v, depth)
	case container.FormatOffloadBinary:
		w.offloadBinaries(n, v, depth)
	case container.FormatNVFatbin:
		w.nvFatbin(n, v, depth)
	case container.FormatELF:
		w.elf(n, v, depth)
	case container.FormatArchive:
		w.archive(n, v, depth)
	case container.FormatCOFF:
		w.coff(n, v, depth)
	case container.FormatTextBundle:
		w.textBundle(n, v, comment, depth)
	default:
		n.Format, n.Detail = leafKind(v.head(4096))
		if n.Format == "bitcode" {
			bitcodeModules(n, v)
		}
	}
	return n
}

// fail records where parsing stopped. Errors that carry an offset relative
// to the view are turned into absolute offsets.
func fail(n *Node, v view, err error) {
	if off, ok := errorOffset(err); ok {
		n.Error = fmt.Sprintf("at offset %d (%s): %v", v.base+off, v.space, err)
		return
	}
	n.Error = fmt.Sprintf("in %s at offset %d: %v", n.Format, v.base, err)
}

// errorOffset extracts the offset of the format packages' error types.
func errorOffset(err error) (int64, bool) {
	var be *bundle.FormatError
	var oe *offloadbin.FormatError
	var ee *elfobj.FormatError
	var ae *ar.FormatError
	var bce *bitcode.FormatError
	var ce *coffobj.FormatError
	switch {
	case errors.As(err, &be):
		return be.Offset, true
	case errors.As(err, &oe):
		return oe.Off, true
	case errors.As(err, &ee):
		return ee.Off, true
	case errors.As(err, &ae):
		return ae.Off, true
	case errors.As(err, &bce):
		return bce.Off, true
	case errors.As(err, &ce):
		return ce.Off, true
	}
	return 0, false
}
