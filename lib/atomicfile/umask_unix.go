//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// umask is the process's file mode creation mask. Reading it means setting
// it, so it is read once, while the package initialises: no other goroutine
// of ours creates files yet, so none can see the mask at 0 in between.
var umask = func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m) & os.ModePerm
}()
