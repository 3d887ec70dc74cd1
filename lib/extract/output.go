package extract

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/outbudget"
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
// images hold no file descriptors), and renamed into place on Commit. The
// directory is opened once and everything is done relative to it (see
// atomicfile.DirGroup), so its temporary files are removed whatever
// happens to its path meanwhile. An image that repeats the bytes of one
// written before (Image.Repeats) becomes a hard link to it.
type DirWriter struct {
	dir, prefix string
	names       Namer
	group       *atomicfile.DirGroup
	written     map[*Image]written // by the image first found with the bytes
	paths       []string
	// Budget, if set, is charged for each file before it is written.
	Budget *outbudget.Budget
}

type written struct {
	f    *atomicfile.DirFile
	path string
}

// NewDirWriter opens dir (which must exist) for writing images into,
// naming files with prefix (see FileName).
func NewDirWriter(dir, prefix string) (*DirWriter, error) {
	g, err := atomicfile.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	return &DirWriter{dir: dir, prefix: prefix, group: g, written: map[*Image]written{}}, nil
}

// Add writes im and returns the path it will have and, for an image whose
// bytes were written before, the path it is a hard link to.
func (d *DirWriter) Add(im *Image) (path, linkedTo string, err error) {
	name := d.names.Name(d.prefix, im)
	path = filepath.Join(d.dir, name)
	key := im
	if im.Repeats != nil {
		key = im.Repeats
	}
	if first, ok := d.written[key]; ok {
		if err := d.Budget.Charge(0); err != nil {
			return "", "", err
		}
		if err := d.group.Link(name, first.f); err != nil {
			return "", "", err
		}
		d.paths = append(d.paths, path)
		return path, first.path, nil
	}
	if err := d.Budget.Charge(uint64(im.Size)); err != nil {
		return "", "", err
	}
	f, err := d.group.Create(name)
	if err != nil {
		return "", "", err
	}
	if _, err := f.ReadFrom(im.Open()); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Finish(); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	d.written[key] = written{f, path}
	d.paths = append(d.paths, path)
	return path, "", nil
}

// Paths are the paths of the images added so far.
func (d *DirWriter) Paths() []string { return d.paths }

// Commit makes every image visible.
func (d *DirWriter) Commit() error { return d.group.Commit() }

// Abort discards everything not committed.
func (d *DirWriter) Abort() { d.group.Abort() }

// ToDir writes the images into dir, all or none, and returns the paths.
func ToDir(dir, prefix string, ims []*Image) ([]string, error) {
	d, err := NewDirWriter(dir, prefix)
	if err != nil {
		return nil, err
	}
	defer d.Abort()
	for _, im := range ims {
		if _, _, err := d.Add(im); err != nil {
			return nil, err
		}
	}
	return d.Paths(), d.Commit()
}
