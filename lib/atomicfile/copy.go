package atomicfile

import (
	"io"
	"os"
	"sync"
)

// ReadFrom copies r to the file; io.Copy and bufio.Writer.ReadFrom use it.
// When r is a section of another file (an *io.SectionReader over an
// *os.File, possibly nested in further SectionReaders and limited by the
// *io.LimitedReader that io.CopyN makes), the bytes are copied with
// positioned reads or by the kernel (see copySection), without the small
// buffers of io.Copy, and r then advances as if it had been read. Other
// readers take the ordinary *os.File path.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	s, ok := fileSection(r)
	if !ok {
		return f.File.ReadFrom(r)
	}
	n, err := f.copySection(s)
	s.advance(n)
	if err != nil || n == s.n {
		return n, err
	}
	m, err := f.File.ReadFrom(r) // the source ended early; r reports how
	return n + m, err
}

// copySection appends s to the file. The kernel copies it
// (copy_file_range) only where that can share extents instead of copying:
// on filesystems with reflinks, for ranges whose source and destination
// offsets are congruent modulo the page size. Elsewhere, ext4 included, one
// large buffer of positioned reads and writes is faster than the kernel's
// page-by-page copy, and much faster for misaligned ranges.
func (f *File) copySection(s section) (int64, error) {
	var done int64
	if s.n >= copyBufSize && canClone(f.File) {
		if pos, err := f.File.Seek(0, io.SeekCurrent); err == nil && (pos-s.off)%int64(os.Getpagesize()) == 0 {
			n, err := kernelCopy(f.File, s.file, s.off, s.n)
			if err != nil || n == s.n {
				return n, err
			}
			done, s.off, s.n = n, s.off+n, s.n-n
		}
	}
	n, err := bufferedCopy(f.File, s.file, s.off, s.n)
	return done + n, err
}

const copyBufSize = 1 << 20

// copyBufs recycles copy buffers: a fresh 1 MiB buffer per copy costs 256
// page faults, which for four 64 MiB inputs was a measurable share of the
// run.
var copyBufs = sync.Pool{New: func() any { return new([copyBufSize]byte) }}

// bufferedCopy copies n bytes of src at off to dst through one buffer; a
// short count with a nil error means src ended.
func bufferedCopy(dst, src *os.File, off, n int64) (int64, error) {
	b := copyBufs.Get().(*[copyBufSize]byte)
	defer copyBufs.Put(b)
	buf := b[:min(n, copyBufSize)]
	var done int64
	for done < n {
		k, rerr := src.ReadAt(buf[:min(n-done, int64(len(buf)))], off+done)
		if k > 0 {
			if _, err := dst.Write(buf[:k]); err != nil {
				return done, err
			}
			done += int64(k)
		}
		if rerr == io.EOF {
			return done, nil
		}
		if rerr != nil {
			return done, rerr
		}
	}
	return done, nil
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
