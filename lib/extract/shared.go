package extract

import (
	"io"
	"reflect"
)

// Containers and images that several entries, sections or members point
// at — the same range of the same bytes — are walked once. A container met
// again is not walked again (its images were handed on the first time);
// Options.Repeated hears of it. An image met again is handed on with
// Image.Repeats set, so that writers can link to the first copy instead
// of writing its bytes again. A few kilobytes of headers pointing at one
// nested bundle, a few levels deep, so cost O(entries), not
// fanout^levels.

// payload identifies a range of bytes: the reader under every
// io.SectionReader and the range in it.
type payload struct {
	base         io.ReaderAt
	offset, size int64
}

// identify returns the payload r's first size bytes are, and false where
// r's identity cannot be told (it is not a pointer, so copies of it would
// compare equal without being the same data).
func identify(r io.ReaderAt, size int64) (payload, bool) {
	var off int64
	for {
		s, ok := r.(*io.SectionReader)
		if !ok {
			break
		}
		outer, o, _ := s.Outer()
		r, off = outer, off+o
	}
	if r == nil || reflect.TypeOf(r).Kind() != reflect.Pointer {
		return payload{}, false
	}
	return payload{r, off, size}, true
}

// walkedBefore reports whether the container in r was walked already,
// telling Options.Repeated, and otherwise records it as walked from where.
func (w *Walker) walkedBefore(r io.ReaderAt, size int64, where []string) bool {
	p, ok := identify(r, size)
	if !ok || size == 0 {
		return false
	}
	if first, ok := w.containers[p]; ok {
		if w.opt.Repeated != nil {
			w.opt.Repeated(where, first)
		}
		return true
	}
	w.containers[p] = where
	return false
}

// handOn gives im to fn, marking it as a repeat of an image with the same
// bytes found earlier.
func (w *Walker) handOn(im *Image, fn func(*Image) error) error {
	if p, ok := identify(im.data, im.Size); ok && im.Size > 0 {
		if first, ok := w.images[p]; ok {
			im.Repeats = first
		} else {
			w.images[p] = im
		}
	}
	return fn(im)
}
