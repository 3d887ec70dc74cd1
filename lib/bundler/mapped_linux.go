package bundler

import (
	"os"
	"syscall"
)

// mapInput maps src when it is a whole regular file of at most maxMapped
// bytes, for reading; it returns nil (and the caller reads through the
// file) otherwise.
func mapInput(src *source) (mapped, func()) {
	f, ok := src.r.(*os.File)
	if !ok || !mapInputs || src.size <= 0 || src.size > maxMapped {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(src.size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return mapped(b), func() { syscall.Munmap(b) }
}

// mapInputs can be turned off by tests, to cover the path without a
// mapping.
var mapInputs = true

// maxMapped bounds the input pages a run keeps mapped, and so its resident
// size: they are the page cache's clean pages, which the kernel can drop,
// but they count as the process's memory. Larger archives are read in
// windows, in bounded memory.
const maxMapped = 256 << 20
