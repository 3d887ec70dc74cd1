package container

import (
	"errors"
	"io"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// Walk is the one walk over containers nested to any depth that inspect
// and extract share: it recognises each part's format (the formats table,
// formats.go), walks its pieces through that format's walker, limits the
// depth, meets bytes already walked once (by blob, offset and size),
// decodes compressed records and inflates what needs inflating against
// the input's budget, and keeps the temporary files that takes. What a
// part means (a node of a tree, an image to write) is the Visitor's.
//
// As archive/tar gives every caller one Next, Walk gives every caller one
// Enter and one Leave per part, in depth-first order: the input, then
// each part inside it, each part's own parts between its Enter and its
// Leave.
func Walk(r io.ReaderAt, size int64, name string, opt WalkOptions, v Visitor) error {
	if opt.MaxDepth == 0 {
		opt.MaxDepth = 16
	}
	if opt.InflateInMemory == 0 {
		opt.InflateInMemory = 64 << 10
	}
	if opt.Temps == nil { // the walk's own, gone with it
		opt.Temps = &Temps{}
		defer opt.Temps.Close()
	}
	w := &walk{opt: opt, v: v, seen: map[int]map[span]any{}}
	root := &Part{Piece: Piece{Kind: Root, Name: name, Size: size, Data: io.NewSectionReader(r, 0, size)}}
	return w.part(root)
}

// WalkOptions are what the callers of Walk differ on.
type WalkOptions struct {
	// MaxDepth bounds the levels of parts below the input; 0 means 16.
	MaxDepth int
	// Budget is the input's decompression budget (and its rule for
	// compressed data inside compressed data: budget.Layer).
	Budget *budget.Budget
	// Temps is where payloads decoded whole or inflated are spilled; nil
	// spills to os.TempDir, closed when Walk returns.
	Temps *Temps
	// KeepSpilled keeps every spilled file until Temps is closed (what is
	// found is read after the walk); otherwise the files spilled while a
	// part is walked are closed when the walk leaves it.
	KeepSpilled bool
	// Prefix and Enough are RecordsOptions': how much of each compressed
	// record is decoded into memory first.
	Prefix int
	Enough func(kept []byte, size int64) bool
	// KeepMismatched is RecordsOptions': a record whose hash does not
	// match is walked, and ends its sequence.
	KeepMismatched bool
	// InflateInMemory is the largest compressed fat-binary entry inflated
	// into memory rather than a spill file (InflateFatbinEntry); 0 means
	// 64 KiB: a fat binary may hold an entry every 80 bytes, and a file
	// each would cost a descriptor and a few system calls each.
	InflateInMemory int64
	// MaxText bounds the text bundles read (into memory) whole.
	MaxText int64
	// DeclaredFirst checks what all the compressed entries of a fat
	// binary declare against the budget before the first is inflated.
	DeclaredFirst bool
	// As is the input's format where the caller knows it (a runtime is
	// handed the bytes as one): the input is read as that format whatever
	// its head says, and that format's reader says why when the bytes are
	// not one. FormatNone recognises it as every other part is.
	As Format
	// Decoded, with As FormatCCOB, is the format each of the input's
	// compressed records decodes to (a runtime that decompresses what it
	// is handed, such as HIP's): read as that format whatever its head
	// says, as As is.
	Decoded Format
}

// Visitor hears of every part of a walk.
type Visitor interface {
	// Enter hears of p before the walk looks inside it, and says whether
	// to (a part met before, or too deep, is never looked inside). It may
	// set p.Tag. An error ends the walk of p's parent.
	Enter(p *Part) (inside bool, err error)
	// Leave hears of p after the walk looked inside it (err: why it
	// stopped, nil when it did not look inside), or after Enter said not
	// to. What it returns is what the walk of p's parent gets from p.
	Leave(p *Part, err error) error
}

// Part is one thing a walk meets: the input, an archive member, a
// section, a bundle entry, an OffloadBinary image, a fat-binary entry, a
// compressed record and what it decodes to.
type Part struct {
	// Piece is how it sits in its parent: Kind, Name, Offset and Size in
	// the parent's bytes, Data (its bytes; the stored ones for a
	// compressed record or fat-binary entry), and Image or Fatbin.
	Piece
	Parent *Part // nil for the input
	// Depth counts the levels of contents above it: 0 for the input, its
	// parent's + 1 for a piece; a Payload is at its record's or entry's.
	Depth int
	// Format is what its bytes are, recognised from their head, for the
	// parts whose bytes are looked at (contents: not a Record, a
	// compressed FatbinEntry or a HostMarker); FormatNone for a payload
	// (code, data).
	Format Format
	// Comment is a text bundle's comment marker.
	Comment string
	// Blob and At say which bytes it is: Blob 0 is the input and each
	// payload decoded or inflated gets the next number; At is where it
	// starts there. Blob is -1 for parts with no place of their own (a
	// text bundle's entries, read into memory; host markers).
	Blob int
	At   int64
	// Same, for bytes met before (the same blob, offset and size), is the
	// Tag of the part that met them first; such a part is not looked
	// inside. Empty parts and fat-binary entries are never the same.
	Same any
	// TooDeep says the part is more than MaxDepth levels down: it is not
	// looked inside.
	TooDeep bool
	// Record is a Record part's compressed record.
	Record *CCOBRecord
	// ELF and COFF are the object files, once opened to look inside.
	ELF  *elfobj.File
	COFF *coffobj.File
	// Tag is the visitor's: what it made of the part.
	Tag any
}

// contents reports whether the walk looks at p's bytes: recognises them,
// meets them again, limits their depth.
func (p *Part) contents() bool {
	switch p.Kind {
	case Record, HostMarker:
		return false
	case FatbinEntry:
		return !p.Fatbin.Compressed
	}
	return true
}

// span is a range of a blob.
type span struct{ at, size int64 }

type walk struct {
	opt   WalkOptions
	v     Visitor
	blobs int                  // the blobs numbered so far
	seen  map[int]map[span]any // by blob: the Tag of the part first met over each range
}

// part meets p: recognises it, hands it to the visitor, and walks inside
// it if the visitor says so.
func (w *walk) part(p *Part) error {
	mark := w.opt.Temps.Len()
	if !w.opt.KeepSpilled {
		defer func() { w.opt.Temps.CloseFrom(mark) }()
	}
	key, keyed := w.key(p)
	if keyed {
		p.Same = w.seen[p.Blob][key]
	}
	if p.contents() {
		p.TooDeep = p.Same == nil && p.Depth > w.opt.MaxDepth
		p.Format, p.Comment = Recognise(headOf(p.Data, 64))
		if f := w.as(p); f != FormatNone {
			p.Format = f
		}
	}
	inside, err := w.v.Enter(p)
	if err != nil {
		return err
	}
	if keyed && p.Same == nil {
		if w.seen[p.Blob] == nil {
			w.seen[p.Blob] = map[span]any{}
		}
		w.seen[p.Blob][key] = p.Tag
	}
	err = nil
	if inside && p.Same == nil && !p.TooDeep {
		err = w.inside(p)
	}
	return w.v.Leave(p, err)
}

// as is the format the caller says p is (As, Decoded); FormatNone where
// it says nothing and p is recognised from its head.
func (w *walk) as(p *Part) Format {
	switch {
	case p.Parent == nil:
		return w.opt.As
	case w.opt.As == FormatCCOB && p.Kind == Payload && p.Parent.Kind == Record && p.Parent.Parent.Parent == nil:
		return w.opt.Decoded
	}
	return FormatNone
}

// key is p's range of its blob, for parts that may be met again.
func (w *walk) key(p *Part) (span, bool) {
	if !p.contents() || p.Blob < 0 || p.Size == 0 || p.Kind == FatbinEntry {
		return span{}, false // fat-binary entries follow each other: none is met twice
	}
	return span{p.At, p.Size}, true
}

// newBlob numbers a payload decoded or inflated; forget lets its ranges go
// once it is walked: nothing after it can point into it.
func (w *walk) newBlob() int {
	w.blobs++
	return w.blobs
}

func (w *walk) forget(blob int) { delete(w.seen, blob) }

// inside walks what is inside p: a record's or a compressed entry's
// payload, or p's own bytes as its format reads them.
func (w *walk) inside(p *Part) error {
	switch {
	case p.Kind == Record:
		return w.record(p)
	case p.Kind == FatbinEntry && p.Fatbin.Compressed:
		return w.inflate(p)
	case p.Kind == Image && p.Image.Compressed:
		// An image of a compressed OffloadBinary is inside compressed data.
		if err := w.opt.Budget.Enter(budget.Container); err != nil {
			return err
		}
		defer w.opt.Budget.Leave()
	}
	if f := formatOf(p.Format); f != nil {
		return f.walk(w, p)
	}
	return nil
}

// piece meets pc, a piece of parent.
func (w *walk) piece(parent *Part, pc Piece) error {
	p := &Part{Piece: pc, Parent: parent, Depth: parent.Depth + 1, Blob: parent.Blob, At: parent.At + pc.Offset}
	if pc.Offset < 0 || parent.Blob < 0 {
		p.Blob, p.At = -1, pc.Offset
	}
	return w.part(p)
}

// record walks what a compressed record decodes to: the record's payload
// is a part of its own, one blob, at the record's depth.
func (w *walk) record(p *Part) error {
	rec := p.Record
	size := int64(rec.Header.UncompressedSize)
	return rec.Look(func(payload io.ReaderAt, whole bool) error {
		pp := &Part{Piece: Piece{Kind: Payload, Size: size, Data: io.NewSectionReader(payload, 0, size)}, Parent: p, Depth: p.Depth, Blob: w.newBlob()}
		defer w.forget(pp.Blob)
		return w.part(pp)
	})
}

// inflate inflates a compressed fat-binary entry, charging what it
// declares first, and walks what it holds (a cubin is its image's bytes,
// without the padding after it) as a Payload part. A fat binary's own
// compression is no layer of nesting (budget.Entry), but what it inflates
// to is inside compressed data.
func (w *walk) inflate(p *Part) error {
	e := p.Fatbin
	r, err := InflateFatbinEntry(p.Parent.Data, e, w.opt.Budget, w.opt.InflateInMemory, w.opt.Temps.New)
	if err != nil {
		return err
	}
	size := e.UncompressedSize
	if e.Kind == nvfatbin.KindELF {
		size = e.ImageSize(r, size)
	}
	w.opt.Budget.Enter(budget.Entry) // never refused: see budget.Layer
	defer w.opt.Budget.Leave()
	pp := &Part{Piece: Piece{Kind: Payload, Size: size, Data: io.NewSectionReader(r, 0, size)}, Parent: p, Depth: p.Depth, Blob: w.newBlob()}
	defer w.forget(pp.Blob)
	return w.part(pp)
}

// ErrorOffset is where a format's error says the damage is, in the bytes
// its reader was given: the formats' FormatErrors all tell it
// (ErrorOffset), the outermost in err's chain first.
func ErrorOffset(err error) (int64, bool) {
	var at interface{ ErrorOffset() int64 }
	if errors.As(err, &at) {
		return at.ErrorOffset(), true
	}
	return 0, false
}
