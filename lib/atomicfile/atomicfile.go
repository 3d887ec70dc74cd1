// Package atomicfile writes output files so that they appear whole or not
// at all: data goes to a temporary file in the destination's directory,
// which is renamed over the destination only on Commit. A build that fails
// half-way therefore never leaves a truncated output for a cache to pick up.
//
// Committed files get the permissions a plain create would give them, as
// LLVM's tools do: 0666 less the umask for a new file, and the mode of the
// file it replaces otherwise (a private 0600 output stays private). Modes
// are not part of the bytes, and Bazel sets its outputs' modes itself.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is an output being written.
type File struct {
	*os.File
	path     string
	direct   bool // a device or stdout: written in place, nothing to rename
	finished bool // the temporary file is closed
	done     bool
}

// Create starts writing path. "-" means standard output. Paths that exist and
// are not regular files (such as /dev/null) are written directly.
func Create(path string) (*File, error) {
	if path == "-" {
		return &File{File: os.Stdout, path: path, direct: true}, nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path, direct: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: unwrapPathErr(err)}
	}
	return &File{File: f, path: path}, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Path is the destination path.
func (f *File) Path() string { return f.path }

// Commit makes the written data visible under the destination path.
func (f *File) Commit() error {
	if err := f.finish(); err != nil {
		f.Abort()
		return err
	}
	undo, err := f.publish()
	if err != nil {
		f.Abort()
		return err
	}
	undo.forget()
	return nil
}

// Finish closes the temporary file once everything is written, giving it
// its final mode; it becomes visible on Commit. An output that is finished
// early holds no file descriptor while it waits for its group.
func (f *File) Finish() error {
	if f.done || f.direct || f.finished {
		return nil
	}
	f.finished = true
	err := f.File.Chmod(modeFor(f.path))
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *File) finish() error { return f.Finish() }

// modeFor is the mode an output at path gets: that of the regular file it
// replaces, else 0666 less the umask.
func modeFor(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm()
	}
	return 0o666 &^ umask
}

// undo puts back what a publish replaced.
type undo struct {
	dest, backup string
	created      bool // dest did not exist before
}

// revert restores the previous state of dest.
func (u undo) revert() {
	switch {
	case u.backup != "":
		os.Rename(u.backup, u.dest)
		untrack(u.backup)
	case u.created:
		os.Remove(u.dest)
	}
}

// forget drops the backup once the whole commit succeeded.
func (u undo) forget() {
	if u.backup != "" {
		removeTemp(u.backup)
	}
}

// publish renames the temporary file to the destination, first keeping a
// hard link to the file it replaces so that a failed group can restore it.
// The replaced file is unlinked before the rename: renaming over an
// existing file makes ext4 (auto_da_alloc) flush the new one to disk, which
// triples the cost of rewriting outputs.
func (f *File) publish() (undo, error) {
	if f.done {
		return undo{}, nil
	}
	f.done = true
	if f.direct {
		if f.File == os.Stdout {
			return undo{}, nil
		}
		return undo{}, f.File.Close()
	}
	tmp := f.File.Name()
	u := undo{dest: f.path}
	if _, err := os.Lstat(f.path); err != nil {
		u.created = true
	} else if b, err := backupName(f.path); err == nil && linkTracked(f.path, b) == nil {
		u.backup = b
		os.Remove(f.path)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		removeTemp(tmp)
		if u.backup != "" { // put the replaced file back
			os.Rename(u.backup, u.dest)
			untrack(u.backup)
		}
		return undo{}, err
	}
	untrack(tmp)
	return u, nil
}

// backupName returns an unused name beside path.
func backupName(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".old*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return name, nil
}

// Abort discards the output. It is safe to call after Commit (it then does
// nothing), so callers may defer it.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.direct {
		if f.File != os.Stdout {
			f.File.Close()
		}
		return
	}
	if !f.finished {
		f.File.Close()
	}
	removeTemp(f.File.Name())
}

// Group holds several outputs that succeed or fail together.
type Group struct {
	files []*File
	paths map[string]string // cleaned, case-folded path -> path as given
}

// Create adds a new output to the group. Two outputs of one group may not
// share a path (compared cleaned and case-folded): one would silently
// replace the other.
func (g *Group) Create(path string) (*File, error) {
	key := strings.ToLower(filepath.Clean(path))
	if prev, ok := g.paths[key]; ok && path != "-" {
		return nil, fmt.Errorf("%s: the same output is written twice (also as %s)", path, prev)
	}
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	if g.paths == nil {
		g.paths = map[string]string{}
	}
	g.paths[key] = path
	g.files = append(g.files, f)
	return f, nil
}

// Commit makes every output visible, or none: all temporary files are
// finished first, and if a rename fails the outputs already renamed are
// rolled back (files they replaced are restored from hard links; where the
// file system cannot link, the replaced file is lost but no new output stays).
func (g *Group) Commit() error {
	for _, f := range g.files {
		if err := f.finish(); err != nil {
			g.Abort()
			return err
		}
	}
	var done []undo
	for _, f := range g.files {
		u, err := f.publish()
		if err != nil {
			for i := len(done) - 1; i >= 0; i-- {
				done[i].revert()
			}
			g.Abort()
			return err
		}
		done = append(done, u)
	}
	for _, u := range done {
		u.forget()
	}
	return nil
}

// Abort discards every output not yet committed.
func (g *Group) Abort() {
	for _, f := range g.files {
		f.Abort()
	}
}

// WriteFile writes data from r to path atomically.
func WriteFile(path string, r io.Reader) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := io.Copy(f, r); err != nil {
		return err
	}
	return f.Commit()
}
