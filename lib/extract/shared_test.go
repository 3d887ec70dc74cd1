package extract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// A bundle whose 10 entries all point at one nested bundle, 4 levels deep
// (2.5 KB; walked entry by entry, 10,000 images): each nested bundle is
// walked once and the innermost 10 entries are handed on once each, all
// but the first marked as repeating its bytes.
func TestSharedNestedBundleWalkedOnce(t *testing.T) {
	in := hostile.SharedBundle(10, 4, []byte("leaf"))
	var repeated int
	ims, err := walkBytes(Options{Repeated: func(where, first []string) { repeated++ }}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(ims) != 10 || repeated != 27 {
		t.Fatalf("%d images, %d containers met again; want 10 and 27", len(ims), repeated)
	}
	for i, im := range ims {
		if (i == 0) != (im.Repeats == nil) || i > 0 && im.Repeats != ims[0] {
			t.Errorf("image %d (%s) repeats %v", i, im.BundleID, im.Repeats)
		}
	}
}

// overlapping is a bundle of n entries over the same size bytes.
func overlapping(n, size int) []byte {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx%d", 1000+i)
	}
	off := hostile.BundleHeaderSize(ids)
	es := make([]hostile.BundleEntry, n)
	for i, id := range ids {
		es[i] = hostile.BundleEntry{ID: id, Offset: off, Size: uint64(size)}
	}
	return hostile.Bundle(es, bytes.Repeat([]byte{7}, size))
}

// 1,000 entries over the same 64 KiB write it once: 1,000 names, one inode.
func TestSameBytesWrittenOnce(t *testing.T) {
	ims, err := walkBytes(Options{}, overlapping(1000, 64<<10))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := ToDir(dir, "x", ims)
	if err != nil || len(paths) != 1000 {
		t.Fatalf("%d paths, %v", len(paths), err)
	}
	first, _ := os.Stat(paths[0])
	for _, p := range paths[1:] {
		if fi, err := os.Stat(p); err != nil || !os.SameFile(first, fi) {
			t.Fatalf("%s is not a link to %s", p, paths[0])
		}
	}
}

// The output directory renamed and replaced by a symbolic link while
// images are written (the review: 1,443 temporary files, 1.5 GB, left
// behind): aborting removes every temporary file from the directory that
// was opened, and nothing is written where the link points.
func TestDirWriterCleansUpAfterDirectorySwap(t *testing.T) {
	ims, err := walkBytes(Options{}, hostile.SharedBundle(8, 1, []byte("payload")))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	d, err := NewDirWriter(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range ims[:4] {
		if _, _, err := d.Add(im); err != nil {
			t.Fatal(err)
		}
	}
	moved, elsewhere := dir+".moved", dir+".elsewhere"
	os.Mkdir(elsewhere, 0o755)
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	os.Symlink(elsewhere, dir)
	for _, im := range ims[4:] {
		d.Add(im)
	}
	d.Abort()
	for _, p := range []string{moved, elsewhere} {
		if es, _ := os.ReadDir(p); len(es) != 0 {
			t.Errorf("%s holds %d files after Abort, such as %s", filepath.Base(p), len(es), es[0].Name())
		}
	}
}
