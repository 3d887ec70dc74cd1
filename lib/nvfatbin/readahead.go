package nvfatbin

import "io"

// readAhead serves the small reads of a scan (16 bytes, then each entry
// header) from a buffer of the bytes that follow, so that scanning a
// container of many small entries in a file costs a read per 64 KiB, not
// two per entry (2 million entries: 4 million system calls).
type readAhead struct {
	r   io.ReaderAt
	buf []byte
	off int64 // of buf[0] in r
	n   int   // bytes of buf holding r's bytes
}

const readAheadSize = 64 << 10

func newReadAhead(r io.ReaderAt) *readAhead {
	return &readAhead{r: r, buf: make([]byte, readAheadSize)}
}

func (a *readAhead) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > len(a.buf)/2 {
		return a.r.ReadAt(p, off)
	}
	if off < a.off || off+int64(len(p)) > a.off+int64(a.n) {
		n, err := a.r.ReadAt(a.buf, off)
		if err != nil && err != io.EOF {
			a.n = 0
			return 0, err
		}
		a.off, a.n = off, n
	}
	k := 0
	if off >= a.off && off < a.off+int64(a.n) {
		k = copy(p, a.buf[off-a.off:a.n])
	}
	if k < len(p) {
		return k, io.EOF
	}
	return k, nil
}
