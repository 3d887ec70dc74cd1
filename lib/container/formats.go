package container

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// Format is a container format the walk looks inside.
type Format int

const (
	FormatNone          Format = iota // a payload: code, data
	FormatCCOB                        // compressed bundles, one or back to back
	FormatBundle                      // a binary offload bundle
	FormatOffloadBinary               // OffloadBinaries, one or back to back
	FormatNVFatbin                    // an NVIDIA fat binary
	FormatELF                         // an ELF file
	FormatArchive                     // an ar archive
	FormatCOFF                        // a COFF object
	FormatTextBundle                  // a text offload bundle
)

// format is one container format as the walk knows it: how to tell it
// from its head, and how to walk its pieces. Adding a format is adding a
// row (RegisterFormat, for one defined elsewhere): inspect and extract
// dispatch through the table, so they never name a format to look inside
// it.
type format struct {
	Format Format
	Name   string // as inspect names it
	// Is tells the format from the first 64 bytes of a part (fewer for a
	// shorter one); comment is a text bundle's marker.
	Is func(head []byte) (ok bool, comment string)
	// walk walks p's pieces (Walk.piece each) and returns the format's
	// typed error if p is malformed; the pieces before that are kept.
	walk func(w *walk, p *Part) error
	// declared is what the compressed pieces of such a container declare
	// they inflate to (Declared); nil for a format that compresses none.
	declared func(r io.ReaderAt, size int64) uint64
}

// formats are tried in this order (set by init: their walkers walk
// parts, which are recognised through formats).
var formats []format

func init() {
	formats = []format{
		{FormatCCOB, "ccob", is(ccob.IsCompressed), walkCCOB, ccob.DeclaredSize},
		{FormatBundle, "bundle", is(bundle.IsBinary), walkPieces(BinaryBundle), nil},
		{FormatOffloadBinary, "offload-binary", is(offloadbin.IsOffloadBinary), walkOffloadBinaries, offloadbin.DeclaredSize},
		{FormatNVFatbin, "cuda-fatbin", is(nvfatbin.IsFatbin), walkNVFatbin, nvFatbinDeclared},
		{FormatELF, "elf", is(elfobj.IsELF), walkELF, nil},
		{FormatArchive, "archive", is(func(h []byte) bool { return bytes.HasPrefix(h, []byte(ar.Magic)) }), walkPieces(Archive), nil},
		{FormatCOFF, "coff", is(coffobj.IsObjectWithMachine), walkCOFF, nil},
		{FormatTextBundle, "text-bundle", isTextBundle, walkTextBundle, nil},
	}
}

// RegisterFormat adds a container format, tried after those known so far:
// is tells it from the first 64 bytes of a part, walk walks its pieces
// (each a Piece whose Offset and Size place it in the container's bytes).
// Every walk (Walk) then looks inside it, and inspect and extract list
// and extract what it holds, with nothing of theirs changed. Call it from
// an init function.
func RegisterFormat(name string, is func(head []byte) bool, walk Walker) Format {
	f := Format(len(formats) + 1)
	formats = append(formats, format{f, name, func(h []byte) (bool, string) { return is(h), "" }, walkPieces(walk), nil})
	return f
}

// String is the format's name, as inspect prints it.
func (f Format) String() string {
	if d := formatOf(f); d != nil {
		return d.Name
	}
	return "data"
}

// Declared is what the compressed pieces of a container of format f, the
// size bytes of r, declare they inflate to, from their headers alone (0
// for a format that compresses nothing), so that a caller reading several
// containers on one budget can check them all before it inflates the
// first. It stops at the first header it cannot read: the walk that
// follows reports it.
func Declared(f Format, r io.ReaderAt, size int64) uint64 {
	if d := formatOf(f); d != nil && d.declared != nil {
		return d.declared(r, size)
	}
	return 0
}

func formatOf(f Format) *format {
	for i := range formats {
		if formats[i].Format == f {
			return &formats[i]
		}
	}
	return nil
}

// Recognise tells the format of a container from its first 64 bytes (fewer
// for a shorter one); for a text bundle it also returns its comment
// marker. Every walk dispatches through it, so all try the formats in
// one order.
func Recognise(head []byte) (Format, string) {
	for _, f := range formats {
		if ok, comment := f.Is(head); ok {
			return f.Format, comment
		}
	}
	return FormatNone, ""
}

func is(test func([]byte) bool) func([]byte) (bool, string) {
	return func(h []byte) (bool, string) { return test(h), "" }
}

func isTextBundle(head []byte) (bool, string) {
	for _, c := range []string{"//", ";", "#"} {
		if bytes.HasPrefix(head, []byte("\n"+c+" "+bundle.Magic+"__START__ ")) {
			return true, c
		}
	}
	return false, ""
}

// walkPieces walks a format through its Walker: each piece it visits is a
// part of p.
func walkPieces(walker Walker) func(w *walk, p *Part) error {
	return func(w *walk, p *Part) error {
		return walker(p.Data, p.Size, func(pc Piece) error { return w.piece(p, pc) })
	}
}

func walkTextBundle(w *walk, p *Part) error {
	return TextBundle(p.Data, p.Size, p.Comment, w.opt.MaxText, func(pc Piece) error { return w.piece(p, pc) })
}

func walkELF(w *walk, p *Part) error {
	f, err := elfobj.Open(p.Data, p.Size)
	if err != nil {
		return err
	}
	p.ELF = f
	return ELFSections(f, func(pc Piece) error { return w.piece(p, pc) })
}

func walkCOFF(w *walk, p *Part) error {
	f, err := coffobj.Open(p.Data, p.Size, "")
	if err != nil {
		return err
	}
	p.COFF = f
	return COFFSections(f, func(pc Piece) error { return w.piece(p, pc) })
}

// walkOffloadBinaries walks the images of OffloadBinaries; the images of
// a compressed binary are in its inflated copy, a blob of its own.
func walkOffloadBinaries(w *walk, p *Part) error {
	inflated := map[int64]int{} // blob by binary offset
	return OffloadBinaries(p.Data, p.Size, w.opt.Budget, w.opt.Temps.New, func(pc Piece) error {
		if !pc.Image.Compressed {
			return w.piece(p, pc)
		}
		blob, ok := inflated[pc.Image.BinaryOffset]
		if !ok {
			blob = w.newBlob()
			inflated[pc.Image.BinaryOffset] = blob
			defer w.forget(blob) // only its binary's images point into it
		}
		return w.part(&Part{Piece: pc, Parent: p, Depth: p.Depth + 1, Blob: blob, At: pc.Offset})
	})
}

// walkNVFatbin walks a fat binary's entries, each checked as it is read;
// with DeclaredFirst what the compressed ones declare together is checked
// against the budget before any is inflated.
func walkNVFatbin(w *walk, p *Part) error {
	if w.opt.DeclaredFirst {
		declared, err := NVFatbinDeclared(p.Data, p.Size)
		if err != nil {
			return err
		}
		if err := w.opt.Budget.Check(declared); err != nil {
			return fmt.Errorf("compressed fat binary entries: %w", err)
		}
	}
	return NVFatbin(p.Data, p.Size, func(pc Piece) error { return w.piece(p, pc) })
}

// walkCCOB walks a sequence of compressed records: each a Record part (not
// a level of its own) whose payload is walked (Walk.record). A record's
// spill files are its own, wherever in the walk of its payload a look
// asks for them (CCOBRecord.Look), and are closed once it is walked,
// unless kept.
func walkCCOB(w *walk, p *Part) error {
	var spilled []*os.File // the record's
	done := func() {
		for _, f := range spilled {
			if w.opt.KeepSpilled {
				w.opt.Temps.Keep(f)
			} else {
				f.Close()
			}
		}
		spilled = nil
	}
	defer done()
	opt := RecordsOptions{Budget: w.opt.Budget, Prefix: w.opt.Prefix, Enough: w.opt.Enough, KeepMismatched: w.opt.KeepMismatched,
		Spill: func() (*os.File, error) {
			f, err := Unlinked(w.opt.Temps.Dir, w.opt.Temps.Pattern)
			if err == nil {
				spilled = append(spilled, f)
			}
			return f, err
		}}
	return CCOBRecords(p.Data, p.Size, opt, func(rec *CCOBRecord) error {
		rp := &Part{Piece: Piece{Kind: Record, Name: fmt.Sprintf("ccob@%d", rec.Offset), Offset: rec.Offset, Size: rec.Used,
			Data: io.NewSectionReader(p.Data, rec.Offset, rec.Used)}, Parent: p, Depth: p.Depth + 1, Blob: -1, At: p.At + rec.Offset, Record: rec}
		defer done()
		return w.part(rp)
	})
}
