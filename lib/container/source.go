// Package container is the floor below the operations (inspect, extract,
// the packager, the bundler) that owns reading their inputs: opening and
// spooling them, mapping them into memory, and the unlinked temporary
// files they spill to. It takes plain options and returns the operating
// system's errors as they are; LLVM's wording of them stays with the
// bundler.
package container

import (
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
// tmpDir when it is not a regular file. A directory is syscall.EISDIR.
func Open(name, tmpDir string) (*Source, error) {
	if name == "-" {
		return Spool(name, os.Stdin, tmpDir)
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
		return Spool(name, f, tmpDir)
	}
	return &Source{Name: name, R: f, Size: fi.Size()}, nil
}

// Spool copies the stream r, the input called name, into an unlinked
// temporary file in tmpDir.
func Spool(name string, r io.Reader, tmpDir string) (*Source, error) {
	tmp, err := Unlinked(tmpDir, "offload-spool-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(tmp, r)
	if err != nil {
		tmp.Close()
		return nil, err
	}
	return &Source{Name: name, R: tmp, Size: n}, nil
}
