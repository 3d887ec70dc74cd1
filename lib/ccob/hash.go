package ccob

import (
	"crypto/md5"
	"hash"
)

// asyncMD5 hashes what is written to it on another goroutine, so that the
// MD5 of a bundle (as costly as decoding it) runs beside the codec instead
// of after each chunk. Writes are gathered into a few fixed buffers, handed
// over when full, so memory does not depend on the input size and small
// writes do not each wake the hashing goroutine. Sum must be called
// exactly once and ends the goroutine.
type asyncMD5 struct {
	cur  []byte // being filled
	work chan []byte
	free chan []byte
	done chan []byte
}

const (
	hashBufSize = 1 << 20
	hashBufs    = 4
)

func newAsyncMD5() *asyncMD5 {
	a := &asyncMD5{
		work: make(chan []byte, hashBufs),
		free: make(chan []byte, hashBufs),
		done: make(chan []byte, 1),
	}
	for range hashBufs - 1 {
		a.free <- make([]byte, 0, hashBufSize)
	}
	a.cur = make([]byte, 0, hashBufSize)
	go a.run(md5.New())
	return a
}

func (a *asyncMD5) run(h hash.Hash) {
	for b := range a.work {
		h.Write(b)
		a.free <- b[:0]
	}
	a.done <- h.Sum(nil)
}

// Write never fails.
func (a *asyncMD5) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := copy(a.cur[len(a.cur):cap(a.cur)], p)
		a.cur, p = a.cur[:len(a.cur)+k], p[k:]
		if len(a.cur) == cap(a.cur) {
			a.work <- a.cur
			a.cur = <-a.free
		}
	}
	return n, nil
}

// Sum waits for everything written to be hashed and returns the digest.
func (a *asyncMD5) Sum() []byte {
	if len(a.cur) > 0 {
		a.work <- a.cur
	}
	close(a.work)
	return <-a.done
}
