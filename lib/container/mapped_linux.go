package container

import (
	"os"
	"syscall"
)

// Map maps s when it is a whole regular file of at most MaxMapped bytes,
// for reading; it returns nil (and the caller reads through the file)
// otherwise.
func Map(s *Source) (Mapped, func()) {
	f, ok := s.R.(*os.File)
	if !ok || s.Size <= 0 || s.Size > MaxMapped {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(s.Size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return Mapped(b), func() { syscall.Munmap(b) }
}

// MaxMapped bounds the input pages a run keeps mapped, and so its resident
// size: they are the page cache's clean pages, which the kernel can drop,
// but they count as the process's memory. Larger archives are read in
// windows, in bounded memory.
const MaxMapped = 256 << 20

// CanMap says whether Map maps anything on this system.
const CanMap = true
