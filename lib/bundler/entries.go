package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// entry is one bundle found in an input, with a way to get its payload.
type entry struct {
	id   string
	open func() (io.Reader, int64, error)
}

// entries lists the bundles of one (decompressed) part of an input, in the
// order LLVM visits them (a binary bundle's in StringMap order, others' in
// file order), using the container LLVM would pick for the file type.
func (h handler) entries(cfg *Config, part *container.Source, scratch *scratch) ([]entry, error) {
	switch h.kind {
	case textHandler:
		return textEntries(part, h.comment)
	case binaryHandler:
		return binaryEntries(part)
	case objectHandler:
		head := part.Prefix(8)
		if elfobj.IsELF(head) {
			return objectEntries(cfg, part, scratch)
		}
		if isOtherObject(head) {
			return nil, errorf("only ELF objects can carry bundle sections; this object format is not supported")
		}
		return binaryEntries(part)
	}
	return nil, h.invalid()
}

func textEntries(part *container.Source, comment string) ([]entry, error) {
	tes, err := bundle.ReadText(part.Reader(), comment)
	if errors.Is(err, bundle.ErrNotBundle) {
		return nil, nil // no start marker: a plain file, as in LLVM
	}
	if err != nil {
		return nil, err
	}
	out := make([]entry, len(tes))
	for i, te := range tes {
		data := te.Data
		out[i] = entry{id: te.ID, open: func() (io.Reader, int64, error) {
			return bytes.NewReader(data), int64(len(data)), nil
		}}
	}
	return out, nil
}

// binaryEntries reads a binary bundle, and any further binary bundles that
// follow it (after zero padding), as LLVM main does for concatenations.
// A file without the magic has no bundles.
func binaryEntries(part *container.Source) ([]entry, error) {
	var out []entry
	for off := int64(0); off < part.Size; {
		view := io.NewSectionReader(part.R, off, part.Size-off)
		head := make([]byte, len(bundle.Magic))
		n, _ := view.ReadAt(head, 0)
		if !bundle.IsBinary(head[:n]) {
			if off == 0 {
				return nil, nil
			}
			break // trailing data after the last bundle is ignored, as in LLVM
		}
		es, err := bundle.ReadBinary(view, view.Size())
		if err != nil {
			return nil, err
		}
		es = inLLVMOrder(es)
		end := int64(0)
		for _, e := range es {
			e := e
			out = append(out, entry{id: e.ID, open: func() (io.Reader, int64, error) {
				return e.Open(view), e.Size, nil
			}})
			end = max(end, e.Offset+e.Size)
		}
		next, err := ccob.SkipPadding(part.R, off+max(end, 1), part.Size)
		if err != nil {
			return nil, err
		}
		off = next
	}
	return out, nil
}

// objectEntries lists the __CLANG_OFFLOAD_BUNDLE__ sections of an ELF file.
// A section holding one zero byte marks the host: its payload is the object
// itself with the bundle sections removed.
func objectEntries(cfg *Config, part *container.Source, scratch *scratch) ([]entry, error) {
	f, err := elfobj.Open(part.R, part.Size)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, s := range f.Sections {
		if !strings.HasPrefix(s.Name, bundle.Magic) {
			continue
		}
		s := s
		id := strings.TrimPrefix(s.Name, bundle.Magic)
		sr := f.SectionReader(s)
		open := func() (io.Reader, int64, error) { return io.NewSectionReader(sr, 0, sr.Size()), sr.Size(), nil }
		if isHostMarker(sr) {
			open = func() (io.Reader, int64, error) { return strippedHost(cfg, part, scratch) }
		}
		out = append(out, entry{id: id, open: open})
	}
	return out, nil
}

func isHostMarker(sr *io.SectionReader) bool {
	if sr.Size() != 1 {
		return false
	}
	var b [1]byte
	_, err := sr.ReadAt(b[:], 0)
	return err == nil && b[0] == 0
}

// strippedHost writes the object without its bundle sections to a scratch
// file and returns a reader over it.
func strippedHost(cfg *Config, part *container.Source, scratch *scratch) (io.Reader, int64, error) {
	if cfg.PrintCommands {
		fmt.Fprintln(cfg.Stderr, quoteAll([]string{"llvm-objcopy", "--regex", "--remove-section=" + bundle.Magic + ".*", "--", part.Name, "<host output>"}))
	}
	tmp, err := scratch.Temps.New()
	if err != nil {
		return nil, 0, err
	}
	drop := func(s elfobj.Section) bool { return strings.HasPrefix(s.Name, bundle.Magic) }
	if err := elfobj.RemoveSections(tmp, part.R, part.Size, drop); err != nil {
		if oe := objcopyError(cfg, err); oe != nil {
			return nil, 0, oe
		}
		return nil, 0, err
	}
	n, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, err
	}
	return io.NewSectionReader(tmp, 0, n), n, nil
}

// scratch owns the temporary files of one job (container.Temps), and the
// decoded archive members whose parts it reads until the outputs are
// written.
type scratch struct {
	container.Temps
	held []*container.Input
}

func newScratch(dir string) *scratch {
	return &scratch{Temps: container.Temps{Dir: dir, Pattern: "offload-scratch-*"}}
}

// hold closes in, with the scratch files.
func (s *scratch) hold(in *container.Input) { s.held = append(s.held, in) }

func (s *scratch) close() {
	s.Temps.Close()
	for _, in := range s.held {
		in.Close()
	}
	s.held = nil
}
