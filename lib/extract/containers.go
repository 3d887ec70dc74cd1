package extract

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

func (w *Walker) binaryBundle(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	return container.BinaryBundle(r, size, func(p container.Piece) error {
		return w.entry(p.Name, p.Data, p.Size, where, depth, fn)
	})
}

// maxText bounds text bundles, which are read into memory (they hold sources).
const maxText = 256 << 20

func (w *Walker) textBundle(r io.ReaderAt, size int64, comment string, where []string, depth int, fn func(*Image) error) error {
	return container.TextBundle(r, size, comment, maxText, func(p container.Piece) error {
		return w.entry(p.Name, p.Data, p.Size, where, depth, fn)
	})
}

// compressed walks what each CCOB decodes to (they may be concatenated,
// with zero padding between). Every record is charged to the input's
// budget before it is decoded, into a temporary file, or for a listing
// only as far as its bundle's header (container.BundleHeads), unless
// listing reads past that.
func (w *Walker) compressed(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	var spilled *os.File
	opt := container.RecordsOptions{Budget: w.budget, Spill: func() (*os.File, error) {
		f, err := w.tempFile()
		spilled = f
		return f, err
	}}
	if w.opt.SizesOnly {
		opt.Prefix, opt.Enough = maxListPrefix, container.BundleHeads
	}
	err := container.CCOBRecords(r, size, opt, func(rec *container.CCOBRecord) error {
		if err := w.record(rec, with(where, fmt.Sprintf("ccob@%d", rec.Offset)), depth, fn); err != nil {
			return err
		}
		if spilled != nil {
			w.release(spilled)
			spilled = nil
		}
		return nil
	})
	if t := (*container.TrailingError)(nil); errors.As(err, &t) {
		return fmt.Errorf("unexpected data after the compressed bundle, at offset %d", t.Offset)
	}
	return err
}

// maxListPrefix bounds what a listing decodes of one compressed record
// before it decodes the record whole.
const maxListPrefix = 16 << 20

// record walks what the compressed record rec decodes to. Images found
// in a record decoded only in part (a listing's prefix: its hash not
// compared) are handed on once the walk over it has ended: a record that
// turns out damaged, or whose hash does not match, when it is decoded
// whole for the walk (container.CCOBRecord.Look), hands on none, as a
// walk of the record decoded whole first would.
func (w *Walker) record(rec *container.CCOBRecord, where []string, depth int, fn func(*Image) error) error {
	var ims []*Image
	size := int64(rec.Header.UncompressedSize)
	err := rec.Look(func(payload io.ReaderAt, whole bool) error {
		if whole {
			return w.any(payload, size, where, depth+1, fn)
		}
		return w.any(payload, size, where, depth+1, func(im *Image) error {
			ims = append(ims, im)
			return nil
		})
	})
	if rec.Err() != nil {
		return err
	}
	for _, im := range ims {
		if err := fn(im); err != nil {
			return err
		}
	}
	return err
}

func (w *Walker) offloadBinaries(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	var spilled []*os.File
	spill := func() (*os.File, error) {
		f, err := w.tempFile()
		if err == nil {
			spilled = append(spilled, f)
		}
		return f, err
	}
	err := container.OffloadBinaries(r, size, w.budget, spill, func(p container.Piece) error {
		return w.offloadImage(p, where, depth, fn)
	})
	if err != nil {
		return err
	}
	for _, f := range spilled {
		w.release(f)
	}
	return nil
}

// offloadImage hands on one image of an OffloadBinary, or walks it if it is
// itself a container.
func (w *Walker) offloadImage(p container.Piece, where []string, depth int, fn func(*Image) error) error {
	ob, label := p.Image, p.Name
	data := io.ReaderAt(p.Data)
	head := headOf(data, ob.Size, 64)
	if offloadbin.IsOffloadBinary(head) || bundle.IsBinary(head) || ccob.IsCompressed(head) {
		if ob.Compressed {
			if err := w.budget.Enter(budget.Container); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			defer w.budget.Leave()
		}
		return w.any(data, ob.Size, with(where, label), depth+1, fn)
	}
	return w.handOn(&Image{
		Where: with(where, label), OffloadKind: ob.OffloadKind.String(), Triple: ob.Triple(),
		TargetID: ob.Arch(), ImageKind: ob.ImageKind, Strings: ob.Strings, Size: ob.Size, data: data,
	}, fn)
}

func (w *Walker) archive(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	return container.Archive(r, size, func(p container.Piece) error {
		return w.any(p.Data, p.Size, with(where, p.Name), depth+1, fn)
	})
}

// elf walks the sections that carry offload code: bundle sections (the
// host marker section is skipped), .hip_fatbin and .llvm.offloading.
func (w *Walker) elf(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	return container.ELF(r, size, func(p container.Piece) error {
		switch p.Kind {
		case container.HostMarker:
			return nil // the object itself is the host entry
		case container.EntrySection:
			return w.entry(p.EntryID(), p.Data, p.Size, where, depth, fn)
		}
		return w.any(p.Data, p.Size, with(where, p.Name), depth+1, fn)
	})
}

// coff walks a COFF object's .llvm.offloading* sections, where LLVM 22
// looks for OffloadBinaries in COFF objects (they have no section types).
func (w *Walker) coff(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	return container.COFF(r, size, func(p container.Piece) error {
		return w.any(p.Data, p.Size, with(where, p.Name), depth+1, fn)
	})
}
