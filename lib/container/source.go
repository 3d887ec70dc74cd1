// Package container is the floor below the operations (inspect, extract,
// the packager, the bundler) that owns reading their inputs: opening and
// spooling them, mapping them into memory, and the unlinked temporary
// files they spill to. It takes plain options and returns the operating
// system's errors as they are; LLVM's wording of them stays with the
// bundler.
package container

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Source is an opened input: random access plus its size. Inputs that are
// not regular files (stdin, pipes) are spooled to an unlinked temporary
// file first, so that every reader works on an io.ReaderAt without holding
// the data in memory.
type Source struct {
	Name string
	R    io.ReaderAt // an *os.File
	Size int64
}

// Close closes the file behind the source.
func (s *Source) Close() error { return s.R.(*os.File).Close() }

// Open opens the input called name ("-" for stdin), spooling it into
// tmpDir when it is not a regular file, at most maxSpool bytes of it (0:
// no bound); a longer stream is a *SpoolError. A directory is
// syscall.EISDIR.
func Open(name, tmpDir string, maxSpool int64) (*Source, error) {
	if name == "-" {
		return Spool(name, os.Stdin, tmpDir, maxSpool)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, syscall.EISDIR
	}
	if !fi.Mode().IsRegular() {
		defer f.Close()
		return Spool(name, f, tmpDir, maxSpool)
	}
	return &Source{Name: name, R: f, Size: fi.Size()}, nil
}

// Spool copies the stream r, the input called name, into an unlinked
// temporary file in tmpDir: at most max bytes (0: no bound), so that a
// stream without end (/dev/zero, a pipe from yes) is refused with a
// *SpoolError instead of filling the temporary directory.
func Spool(name string, r io.Reader, tmpDir string, max int64) (*Source, error) {
	tmp, err := Unlinked(tmpDir, "offload-spool-*")
	if err != nil {
		return nil, err
	}
	if max > 0 {
		r = io.LimitReader(r, max+1)
	}
	n, err := io.Copy(tmp, r)
	if err == nil && max > 0 && n > max {
		err = &SpoolError{Max: max}
	}
	if err != nil {
		tmp.Close()
		return nil, err
	}
	return &Source{Name: name, R: tmp, Size: n}, nil
}

// SpoolError is a stream longer than the most Spool copies from one input.
// Hint, when set, says how the user raises it.
type SpoolError struct {
	Max  int64
	Hint string
}

func (e *SpoolError) Error() string {
	s := fmt.Sprintf("not a regular file, and longer than %d bytes, the most read from such an input", e.Max)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}
