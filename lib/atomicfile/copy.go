package atomicfile

import (
	"io"
	"os"
)

// ReadFrom copies r to the file; io.Copy and bufio.Writer.ReadFrom use it.
// When r is a section of another file (an *io.SectionReader over an
// *os.File, possibly nested in further SectionReaders and limited by the
// *io.LimitedReader that io.CopyN makes), the bytes are copied by the
// kernel (copy_file_range or sendfile on Linux) and never pass through this
// process's memory. r then advances as if it had been read. Other readers,
// and whatever the kernel declines, take the ordinary *os.File path.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	var done int64
	if s, ok := fileSection(r); ok {
		n, err := kernelCopy(f.File, s.file, s.off, s.n)
		s.advance(n)
		done = n
		if err != nil || n == s.n {
			return n, err
		}
	}
	n, err := f.File.ReadFrom(r)
	return done + n, err
}

// section is the byte range of a file a reader yields next.
type section struct {
	file    *os.File
	off, n  int64
	sr      *io.SectionReader
	limited *io.LimitedReader
}

// advance moves the reader past n bytes copied on its behalf.
func (s section) advance(n int64) {
	if n == 0 {
		return
	}
	s.sr.Seek(n, io.SeekCurrent) // cannot fail for a forward relative seek
	if s.limited != nil {
		s.limited.N -= n
	}
}

// fileSection resolves r to the file range it would read next.
func fileSection(r io.Reader) (section, bool) {
	var s section
	limit := int64(-1)
	if lr, ok := r.(*io.LimitedReader); ok {
		s.limited, limit, r = lr, lr.N, lr.R
	}
	sr, ok := r.(*io.SectionReader)
	if !ok {
		return s, false
	}
	s.sr = sr
	pos, _ := sr.Seek(0, io.SeekCurrent)
	base, off, size := sr.Outer()
	s.off, s.n = off+pos, max(size-pos, 0)
	if limit >= 0 {
		s.n = min(s.n, limit)
	}
	for {
		switch b := base.(type) {
		case *os.File:
			s.file = b
			return s, s.off >= 0
		case *io.SectionReader:
			// A range of an inner section: clip to it, then shift by its start.
			inner, ioff, isize := b.Outer()
			if s.off >= isize {
				s.n = 0
			} else {
				s.n = min(s.n, isize-s.off)
			}
			s.off += ioff
			base = inner
		default:
			return s, false
		}
	}
}
