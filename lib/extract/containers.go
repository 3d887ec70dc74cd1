package extract

import (
	"errors"
	"fmt"
	"io"
	"os"

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

// compressed decompresses each CCOB (they may be concatenated, with zero
// padding between) into a temporary file and walks it. Every record is
// charged to the input's budget before it is decoded.
func (w *Walker) compressed(r io.ReaderAt, size int64, where []string, depth int, fn func(*Image) error) error {
	if err := w.enterCompressed(); err != nil {
		return err
	}
	defer w.leaveCompressed()
	if err := w.budget.Check(ccob.DeclaredSize(r, size)); err != nil {
		return fmt.Errorf("compressed bundles: %w", err)
	}
	for off := int64(0); off < size; {
		rec, at := io.NewSectionReader(r, off, size-off), with(where, fmt.Sprintf("ccob@%d", off))
		used, listed, err := w.listRecord(rec, size-off, at, depth, fn)
		if err != nil {
			return err
		}
		if !listed {
			if used, err = w.inflateRecord(rec, off, size-off, at, depth, fn); err != nil {
				return err
			}
		}
		off, err = container.NextRecord(r, off+used, size)
		if t := (*container.TrailingError)(nil); errors.As(err, &t) {
			return fmt.Errorf("unexpected data after the compressed bundle, at offset %d", t.Offset)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// inflateRecord decompresses the compressed record at the start of r (at
// offset off of its container) into a temporary file and walks it; it
// returns the input bytes the record spans.
func (w *Walker) inflateRecord(r io.ReaderAt, off, size int64, where []string, depth int, fn func(*Image) error) (int64, error) {
	tmp, err := w.tempFile()
	if err != nil {
		return 0, err
	}
	h, used, err := ccob.Decompress(tmp, r, size, ccob.ReaderOptions{MaxUncompressedSize: w.budget.Limit(), Budget: w.budget})
	if err != nil {
		return 0, fmt.Errorf("compressed bundle at offset %d: %w", off, err)
	}
	if err := w.any(tmp, int64(h.UncompressedSize), where, depth+1, fn); err != nil {
		return 0, err
	}
	w.release(tmp)
	return used, nil
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
			if err := w.enterCompressed(); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			defer w.leaveCompressed()
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
