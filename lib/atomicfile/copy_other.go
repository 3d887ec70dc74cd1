//go:build !linux

package atomicfile

import "os"

// canClone is false: without copy_file_range there is nothing to gain.
func canClone(f *os.File) bool { return false }

// kernelCopy copies nothing: the caller's ordinary path does the work.
func kernelCopy(dst, src *os.File, off, n int64) (int64, error) { return 0, nil }
