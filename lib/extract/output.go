package extract

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
)

// Namer hands out distinct file names. A name is checked against every
// name already given, compared case-folded so that no two images share a
// file on a case-insensitive file system either; a taken name gets the
// first free number before its extension (name.1.ext, name.2.ext, ...).
// Each name remembers the number it got to, so n images of one name cost
// O(n), not O(n²).
type Namer struct {
	used map[string]bool
	next map[string]int // by case-folded name: the number to try next
}

// Name returns a name for im that no earlier call returned.
func (n *Namer) Name(prefix string, im *Image) string {
	if n.used == nil {
		n.used, n.next = map[string]bool{}, map[string]int{}
	}
	name := FileName(prefix, im)
	key := strings.ToLower(name)
	if n.used[key] {
		ext := filepath.Ext(name)
		stem := strings.TrimSuffix(name, ext)
		k := max(n.next[key], 1)
		for name = numbered(stem, k, ext); n.used[strings.ToLower(name)]; {
			k++
			name = numbered(stem, k, ext)
		}
		n.next[key] = k + 1
	}
	n.used[strings.ToLower(name)] = true
	return name
}

func numbered(stem string, k int, ext string) string {
	return stem + "." + strconv.Itoa(k) + ext
}

// Names returns the file names ToDir and ToArchive give the images, in
// order: FileName, made distinct by a Namer.
func Names(prefix string, ims []*Image) []string {
	var n Namer
	names := make([]string, len(ims))
	for i, im := range ims {
		names[i] = n.Name(prefix, im)
	}
	return names
}

// DirWriter writes images into a directory as they are found, all or none:
// each is written to a temporary file, closed at once (so thousands of
// images hold no file descriptors), and renamed into place on Commit.
type DirWriter struct {
	dir, prefix string
	names       Namer
	group       atomicfile.Group
	paths       []string
}

// NewDirWriter returns a DirWriter for dir, naming files with prefix (see
// FileName).
func NewDirWriter(dir, prefix string) *DirWriter {
	return &DirWriter{dir: dir, prefix: prefix}
}

// Add writes im and returns the path it will have.
func (d *DirWriter) Add(im *Image) (string, error) {
	p := filepath.Join(d.dir, d.names.Name(d.prefix, im))
	f, err := d.group.Create(p)
	if err != nil {
		return "", err
	}
	if _, err := f.ReadFrom(im.Open()); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if err := f.Finish(); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	d.paths = append(d.paths, p)
	return p, nil
}

// Paths are the paths of the images added so far.
func (d *DirWriter) Paths() []string { return d.paths }

// Commit makes every image visible.
func (d *DirWriter) Commit() error { return d.group.Commit() }

// Abort discards everything not committed.
func (d *DirWriter) Abort() { d.group.Abort() }

// ToDir writes the images into dir, all or none, and returns the paths.
func ToDir(dir, prefix string, ims []*Image) ([]string, error) {
	d := NewDirWriter(dir, prefix)
	defer d.Abort()
	for _, im := range ims {
		if _, err := d.Add(im); err != nil {
			return nil, err
		}
	}
	return d.Paths(), d.Commit()
}
