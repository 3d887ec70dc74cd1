package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// DirGroup writes files into one directory, all or none, as Group does,
// but works relative to the directory opened once (an os.Root) instead of
// by path: if the directory is renamed, or its path replaced by a symbolic
// link, while outputs are written, temporary files are still made in and
// removed from the directory that was opened, and nothing is written
// anywhere else. Names are plain file names in that directory.
type DirGroup struct {
	root  *os.Root
	dir   string
	files []*DirFile
	names map[string]string // case-folded name -> name as given
}

// DirFile is an output of a DirGroup being written.
type DirFile struct {
	*os.File
	g         *DirGroup
	name, tmp string
	closed    bool
}

// OpenDir opens dir for a group of outputs.
func OpenDir(dir string) (*DirGroup, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &DirGroup{root: root, dir: dir, names: map[string]string{}}, nil
}

// Create starts writing the file name in the group's directory. Two
// outputs of one group may not share a name (compared case-folded).
func (g *DirGroup) Create(name string) (*DirFile, error) {
	if err := g.claim(name); err != nil {
		return nil, err
	}
	f, tmp, err := g.createTemp(name)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: g.path(name), Err: unwrapPathErr(err)}
	}
	d := &DirFile{File: f, g: g, name: name, tmp: tmp}
	g.files = append(g.files, d)
	return d, nil
}

// Link adds the output name with the same contents as the earlier output
// first, as a hard link to it: its bytes are written once.
func (g *DirGroup) Link(name string, first *DirFile) error {
	if err := g.claim(name); err != nil {
		return err
	}
	if err := first.Finish(); err != nil {
		return err
	}
	for range 100 {
		tmp := tempName(name)
		err := g.link(first.tmp, tmp, "")
		if err == nil {
			g.files = append(g.files, &DirFile{g: g, name: name, tmp: tmp, closed: true})
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return &os.LinkError{Op: "link", Old: g.path(first.name), New: g.path(name), Err: unwrapLinkErr(err)}
		}
	}
	return fmt.Errorf("%s: no free temporary name", g.path(name))
}

func (g *DirGroup) claim(name string) error {
	key := strings.ToLower(name)
	if prev, ok := g.names[key]; ok {
		return fmt.Errorf("%s: the same output is written twice (also as %s)", g.path(name), prev)
	}
	g.names[key] = name
	return nil
}

func (g *DirGroup) path(name string) string { return g.dir + string(os.PathSeparator) + name }

func tempName(name string) string {
	return "." + name + ".tmp" + strconv.FormatUint(uint64(rand.Uint32()), 10)
}

// createTemp makes a new temporary file for name, tracked for RemoveTemps.
func (g *DirGroup) createTemp(name string) (*os.File, string, error) {
	for range 100 {
		tmp := tempName(name)
		live.Lock()
		f, err := g.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			live.rooted[rootedName{g.root, tmp}] = ""
		}
		live.Unlock()
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return f, tmp, err
		}
	}
	return nil, "", fs.ErrExist
}

// link links tmp to old and tracks it: as a temporary file, or as the
// backup of the output restoreTo.
func (g *DirGroup) link(old, tmp, restoreTo string) error {
	live.Lock()
	defer live.Unlock()
	err := g.root.Link(old, tmp)
	if err == nil {
		live.rooted[rootedName{g.root, tmp}] = restoreTo
	}
	return err
}

func (g *DirGroup) remove(tmp string) {
	g.root.Remove(tmp)
	g.untrack(tmp)
}

func (g *DirGroup) untrack(tmp string) {
	live.Lock()
	delete(live.rooted, rootedName{g.root, tmp})
	live.Unlock()
}

// ReadFrom copies r to the file as File.ReadFrom does (sections of files
// by positioned reads or by the kernel).
func (d *DirFile) ReadFrom(r io.Reader) (int64, error) {
	return (&File{File: d.File}).ReadFrom(r)
}

// Finish closes the temporary file once everything is written, giving it
// the mode a plain create would (that of the file it replaces, else 0666
// less the umask).
func (d *DirFile) Finish() error {
	if d.closed {
		return nil
	}
	d.closed = true
	mode := 0o666 &^ umask
	if fi, err := d.g.root.Lstat(d.name); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	err := d.File.Chmod(mode)
	if cerr := d.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// Commit makes every output visible, or none: files an output replaces
// are kept as hard links until every rename succeeded, and put back if one
// fails. The group is closed afterwards.
func (g *DirGroup) Commit() error {
	for _, d := range g.files {
		if err := d.Finish(); err != nil {
			g.Abort()
			return fmt.Errorf("%s: %w", g.path(d.name), err)
		}
	}
	type undo struct{ name, backup string }
	var done []undo
	revert := func() {
		for i := len(done) - 1; i >= 0; i-- {
			u := done[i]
			g.root.Remove(u.name)
			if u.backup != "" {
				g.root.Rename(u.backup, u.name)
				g.untrack(u.backup)
			}
		}
	}
	for _, d := range g.files {
		u := undo{name: d.name}
		if _, err := g.root.Lstat(d.name); err == nil {
			b := tempName(d.name)
			if g.link(d.name, b, d.name) == nil {
				u.backup = b
			}
			g.root.Remove(d.name)
		}
		if err := g.root.Rename(d.tmp, d.name); err != nil {
			if u.backup != "" {
				g.root.Rename(u.backup, d.name)
				g.untrack(u.backup)
			}
			revert()
			g.Abort()
			return &os.LinkError{Op: "rename", Old: g.path(d.tmp), New: g.path(d.name), Err: unwrapLinkErr(err)}
		}
		g.untrack(d.tmp)
		done = append(done, u)
	}
	for _, u := range done {
		if u.backup != "" {
			g.remove(u.backup)
		}
	}
	g.files = nil
	return g.root.Close()
}

// Abort discards every output not yet committed and closes the group. It
// may be called after Commit (it then only closes), so callers may defer it.
func (g *DirGroup) Abort() {
	for _, d := range g.files {
		if !d.closed {
			d.closed = true
			d.File.Close()
		}
		g.remove(d.tmp)
	}
	g.files = nil
	g.root.Close()
}

func unwrapLinkErr(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return unwrapPathErr(err)
}
