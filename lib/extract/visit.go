package extract

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// visitor hands on the images container.Walk meets: bundle entries,
// OffloadBinary images and fat-binary entries whose bytes are no
// container; every other part is looked inside.
//
// Containers and images that several entries, sections or members point
// at — the same range of the same bytes — are walked once (Part.Same). A
// container met again is not walked again (its images were handed on the
// first time); Options.Repeated hears of it. An image met again is handed
// on with Image.Repeats set, so that writers can link to the first copy
// instead of writing its bytes again. A few kilobytes of headers pointing
// at one nested bundle, a few levels deep, so cost O(entries), not
// fanout^levels.
type visitor struct {
	w  *Walker
	fn func(*Image) error
	// held are the images found in records decoded only in part (a
	// listing's prefix, its hash not compared), innermost last: each
	// record's are handed on once its walk has ended, and none if it
	// turns out damaged, or its hash does not match, when it is decoded
	// whole for the walk (container.CCOBRecord.Look), as a walk of the
	// record decoded whole first would.
	held [][]*Image
}

// holding marks a record whose images are held.
type holding struct{}

func (v *visitor) Enter(p *container.Part) (bool, error) {
	switch p.Kind {
	case container.HostMarker:
		return false, nil // the object itself is the host entry
	case container.Record:
		if !p.Record.Whole() {
			v.held, p.Tag = append(v.held, nil), holding{}
		}
		return true, nil
	case container.FatbinEntry:
		return v.fatbinEntry(p)
	case container.Payload:
		if p.Parent.Kind == container.FatbinEntry {
			return false, v.inflated(p)
		}
	case container.Entry, container.EntrySection, container.Image:
		if !nested(p.Format) {
			return false, v.image(p)
		}
	}
	// A container, looked inside whatever it holds.
	switch first := p.Same.(type) {
	case []string:
		v.repeated(p, first)
		return false, nil
	case *Image:
		v.repeated(p, first.Where)
		return false, nil
	}
	if p.TooDeep {
		return false, &walkError{where: where(p), err: fmt.Errorf("nesting deeper than %d levels", v.w.opt.MaxDepth)}
	}
	p.Tag = where(p)
	return p.Format != container.FormatNone, nil
}

func (v *visitor) repeated(p *container.Part, first []string) {
	if v.w.opt.Repeated != nil {
		v.w.opt.Repeated(where(p), first)
	}
}

// nested reports whether an entry or image of this format holds more
// images rather than being one.
func nested(f container.Format) bool {
	return f == container.FormatCCOB || f == container.FormatBundle || f == container.FormatOffloadBinary
}

// Leave names where a container that failed to parse was found, once.
func (v *visitor) Leave(p *container.Part, err error) error {
	switch {
	case p.Kind == container.Record:
		return v.leaveRecord(p, err)
	case err == nil || p.Kind == container.FatbinEntry:
		return err // an entry's failure is its fat binary's
	}
	if we := (*walkError)(nil); errors.As(err, &we) {
		return err
	}
	if t := (*container.TrailingError)(nil); errors.As(err, &t) {
		err = fmt.Errorf("unexpected data after the compressed bundle, at offset %d", t.Offset)
	}
	return &walkError{where: where(p), err: err}
}

func (v *visitor) leaveRecord(p *container.Part, err error) error {
	if _, ok := p.Tag.(holding); !ok {
		return err
	}
	ims := v.held[len(v.held)-1]
	v.held = v.held[:len(v.held)-1]
	if p.Record.Err() != nil {
		return err
	}
	for _, im := range ims {
		if err := v.handOn(im); err != nil {
			return err
		}
	}
	return err
}

// handOn gives im to the caller, or holds it with its record's.
func (v *visitor) handOn(im *Image) error {
	if k := len(v.held); k > 0 {
		v.held[k-1] = append(v.held[k-1], im)
		return nil
	}
	return v.fn(im)
}

// image hands on a bundle entry or an OffloadBinary image.
func (v *visitor) image(p *container.Part) error {
	im := &Image{Where: where(p), Size: p.Size, data: p.Data}
	if p.Kind == container.Image {
		ob := p.Image
		im.OffloadKind, im.Triple, im.TargetID, im.ImageKind, im.Strings = ob.OffloadKind.String(), ob.Triple(), ob.Arch(), ob.ImageKind, ob.Strings
	} else {
		id := p.EntryID()
		im.BundleID = id
		if e, err := targetid.ParseEntryID(id); err == nil {
			im.OffloadKind, im.Triple, im.TargetID = e.Kind, strings.TrimSuffix(e.TripleString(), "-"), e.TargetID
		}
		im.ImageKind = kindOf(headOf(p, 64))
	}
	p.Tag = im
	if first, ok := p.Same.(*Image); ok {
		im.Repeats = first
	}
	return v.handOn(im)
}

// fatbinEntry hands on a fat binary's entry: a cubin or PTX, as
// `cuobjdump -xelf`/`-xptx` writes it (a cubin without the padding after
// it, PTX without its NUL). A compressed entry (nvcc and fatbinary
// compress PTX by default) is inflated by the walk, within the input's
// budget (what all of them declare checked first: DeclaredFirst), and
// handed on with its inflated bytes (inflated).
func (v *visitor) fatbinEntry(p *container.Part) (bool, error) {
	e := p.Fatbin
	kind := offloadbin.ImagePTX
	if e.Kind == nvfatbin.KindELF {
		kind = offloadbin.ImageCubin
	}
	im := &Image{Where: where(p), OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", TargetID: e.ArchName(), ImageKind: kind}
	p.Tag = im
	if e.Compressed {
		return true, nil
	}
	im.Size, im.data = e.ImageSize(p.Data, e.Size), p.Data
	return false, v.handOn(im)
}

// inflated hands on a compressed fat-binary entry, now inflated.
func (v *visitor) inflated(p *container.Part) error {
	im, e := p.Parent.Tag.(*Image), p.Parent.Fatbin
	im.Size, im.data = e.ImageSize(p.Data, e.UncompressedSize), p.Data
	return v.handOn(im)
}

// where is the path of names of the containers p was found in, and p's.
func where(p *container.Part) []string {
	var names []string
	for q := p; q != nil; q = q.Parent {
		switch q.Kind {
		case container.Payload:
		case container.EntrySection:
			names = append(names, q.EntryID())
		default:
			names = append(names, q.Name)
		}
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return names
}

func headOf(p *container.Part, n int) []byte {
	b := make([]byte, min(int64(n), p.Size))
	k, _ := p.Data.ReadAt(b, 0)
	return b[:k]
}
