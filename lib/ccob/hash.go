package ccob

import (
	"crypto/md5"
	"hash"
)

// asyncMD5 hashes what is written to it on another goroutine, so that the
// MD5 of a bundle (as costly as decoding it) runs beside the codec instead
// of after each chunk. Write copies p into one of a few fixed buffers, so
// memory does not depend on the input size. Sum must be called exactly
// once and ends the goroutine.
type asyncMD5 struct {
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
	for range hashBufs {
		a.free <- make([]byte, 0, hashBufSize)
	}
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
		b := <-a.free
		k := copy(b[:cap(b)], p)
		a.work <- b[:k]
		p = p[k:]
	}
	return n, nil
}

// Sum waits for everything written to be hashed and returns the digest.
func (a *asyncMD5) Sum() []byte {
	close(a.work)
	return <-a.done
}
