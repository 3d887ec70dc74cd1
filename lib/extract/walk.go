// Package extract finds the device images inside any offload container —
// bundles (binary, text, compressed, in ELF sections or .hip_fatbin),
// OffloadBinaries, ELF files with .llvm.offloading sections, COFF objects
// with .llvm.offloading* sections and ar archives of these, nested to any
// depth — and hands each to the caller with its target and a reader. It
// backs `offload extract` and `offload convert`.
package extract

import (
	"bytes"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/shown"
)

// Image is one device image found in a container.
type Image struct {
	// Where lists the containers it was found in, outermost first, such as
	// ["lib.a", "k.o", ".hip_fatbin", "hipv4-amdgcn-amd-amdhsa--gfx906"].
	Where []string
	// BundleID is the bundle entry ID, for images from bundles.
	BundleID string
	// OffloadKind is host, hip, hipv4, openmp (bundles) or openmp, cuda,
	// hip, sycl, none (OffloadBinaries).
	OffloadKind string
	Triple      string // without a trailing '-'
	TargetID    string // processor with features, such as gfx90a:xnack+
	ImageKind   offloadbin.ImageKind
	Strings     []offloadbin.KV // OffloadBinary metadata
	Size        int64
	// Repeats is the image found earlier with the same bytes (the same
	// range of the same data: entries or sections that share a payload),
	// nil for the first.
	Repeats *Image
	data    io.ReaderAt
}

// Open returns a reader over the image bytes.
func (im *Image) Open() *io.SectionReader { return io.NewSectionReader(im.data, 0, im.Size) }

// Processor is the target ID without features.
func (im *Image) Processor() string {
	p, _, _ := strings.Cut(im.TargetID, ":")
	return p
}

// Options tune a walk.
type Options struct {
	MaxDepth int // 0 means 16
	// MaxUncompressedSize bounds the bytes decompressed from one input, in
	// total over all its compressed records and nesting levels; 0 means
	// budget.DefaultLimit.
	MaxUncompressedSize uint64
	// AllowNestedCompression lets compressed data hold more compressed
	// data (a CCOB in a CCOB, or in a compressed OffloadBinary). Real tool
	// chains never write that; by default it is refused. (An NVIDIA fat
	// binary's compressed entries are no such nesting: budget.Layer.)
	AllowNestedCompression bool
	// Consume promises that the callback is done with each image when it
	// returns, so that decompressed data is released as soon as the images
	// in it have been handed on instead of when the walker is closed.
	Consume bool
	// SizesOnly promises that the callback never reads the images' bytes
	// (a listing: names, targets, sizes), so that a compressed record is
	// decoded only as far as that needs (container.BundleHeads).
	SizesOnly bool
	TempDir   string // where compressed payloads are decompressed
	// Repeated, if set, hears of each container met again (see
	// shared.go): where it is now, and where it was walked.
	Repeated func(where, first []string)
}

// Walker walks containers (container.Walk) and hands on the images it
// finds; Close removes its temporary files.
type Walker struct {
	opt      Options
	tmps     container.Temps
	closer   []func()
	budget   *budget.Budget // of the input being walked; counts the compressed data the walk is inside
	inflated uint64         // by the walks before this one
}

// OnClose registers fn to run when the walker is closed, so that callers can
// tie the lifetime of their inputs to the images found in them.
func (w *Walker) OnClose(fn func()) { w.closer = append(w.closer, fn) }

// NewWalker returns a Walker.
func NewWalker(opt Options) *Walker {
	if opt.MaxDepth == 0 {
		opt.MaxDepth = 16
	}
	return &Walker{opt: opt, tmps: container.Temps{Dir: opt.TempDir, Pattern: "offload-extract-*"}}
}

// Inflated is the number of bytes decompressed by all walks so far.
func (w *Walker) Inflated() uint64 { return w.inflated + w.budget.Used() }

// Close releases the decompressed data; images found become unreadable.
func (w *Walker) Close() {
	w.tmps.Close()
	for _, fn := range w.closer {
		fn()
	}
	w.closer = nil
}

// Walk calls fn for each device image in the size bytes of r, a file called
// name. A container that fails to parse stops the walk with an error that
// names where it was found.
func (w *Walker) Walk(r io.ReaderAt, size int64, name string, fn func(*Image) error) error {
	w.inflated += w.budget.Used()
	w.budget = budget.New(w.opt.MaxUncompressedSize)
	w.budget.SetHint("raise the limit with --max-uncompressed-size")
	if w.opt.AllowNestedCompression {
		w.budget.AllowNested()
	}
	opt := container.WalkOptions{MaxDepth: w.opt.MaxDepth, Budget: w.budget, Temps: &w.tmps, KeepSpilled: !w.opt.Consume,
		MaxText: maxText, DeclaredFirst: true}
	if w.opt.SizesOnly {
		opt.Prefix, opt.Enough = maxListPrefix, container.BundleHeads
	}
	return container.Walk(r, size, name, opt, &visitor{w: w, fn: fn})
}

// maxText bounds text bundles, which are read into memory (they hold sources).
const maxText = 256 << 20

// maxListPrefix bounds what a listing decodes of one compressed record
// before it decodes the record whole.
const maxListPrefix = 16 << 20

// ErrNested is returned for a compressed container inside compressed data,
// unless Options.AllowNestedCompression (the rule: budget.Layer).
var ErrNested = budget.ErrNested

// walkError names the container path of a failure once, each name escaped
// for printing (see package shown).
type walkError struct {
	where []string
	err   error
}

func (e *walkError) Error() string {
	var b strings.Builder
	for _, w := range e.where {
		b.WriteString(shown.Name(w) + ": ")
	}
	return b.String() + e.err.Error()
}
func (e *walkError) Unwrap() error { return e.err }

// kindOf guesses an image kind from content, for images from bundles,
// which record none.
func kindOf(head []byte) offloadbin.ImageKind {
	switch {
	case bytes.HasPrefix(head, []byte("BC\xc0\xde")), bytes.HasPrefix(head, []byte{0xde, 0xc0, 0x17, 0x0b}):
		return offloadbin.ImageBitcode
	case elfobj.IsELF(head):
		return offloadbin.ImageObject
	case bytes.Contains(head, []byte(".version")):
		return offloadbin.ImagePTX
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x50, 0xed, 0x55, 0xba}):
		return offloadbin.ImageFatbinary
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x03, 0x02, 0x23, 0x07}):
		return offloadbin.ImageSPIRV
	}
	return offloadbin.ImageNone
}
