package container

import (
	"os"
	"slices"
)

// Unlinked creates a temporary file in dir (os.TempDir when "") and
// removes its name at once, so that it vanishes when closed, however the
// run ends: no signal handler has to clean it up.
func Unlinked(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// Temps is a set of unlinked temporary files that a walk spills to and
// closes together, or in the order it made them (CloseFrom), so that its
// disk use is bounded by what it still reads.
type Temps struct {
	Dir     string // where they are made; "" for os.TempDir
	Pattern string // os.CreateTemp's pattern
	files   []*os.File
}

// New returns an unlinked temporary file, closed with the set.
func (t *Temps) New() (*os.File, error) {
	f, err := Unlinked(t.Dir, t.Pattern)
	if err == nil {
		t.files = append(t.files, f)
	}
	return f, err
}

// Keep adds f, an unlinked file made elsewhere, to the set.
func (t *Temps) Keep(f *os.File) { t.files = append(t.files, f) }

// Len is how many files are open: a mark for CloseFrom.
func (t *Temps) Len() int { return len(t.files) }

// CloseFrom closes the files made since there were n.
func (t *Temps) CloseFrom(n int) {
	for _, f := range t.files[n:] {
		f.Close()
	}
	t.files = t.files[:n]
}

// Close closes every file of the set.
func (t *Temps) Close() { t.CloseFrom(0) }

// Release closes f, one of the set's files, now.
func (t *Temps) Release(f *os.File) {
	f.Close()
	t.files = slices.DeleteFunc(t.files, func(g *os.File) bool { return g == f })
}
