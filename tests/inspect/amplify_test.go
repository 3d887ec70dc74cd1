package inspect_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// amplified is what a command run by runAmplified did.
type amplified struct {
	code         int
	out          string // the first 16 MiB of stdout and stderr
	lines, bytes int    // of all of it
	rss          int64
	took         time.Duration
}

// runAmplified runs the offload binary under the personality argv[0] in
// dir (runCapped: killed past capped.MaxRSS or capped.MaxTime, which fails
// the test) and says what it did.
func runAmplified(t *testing.T, dir string, argv ...string) amplified {
	t.Helper()
	r := runCapped(t, dir, argv...)
	return amplified{code: r.Code, out: r.Output, lines: r.Lines, bytes: r.Bytes, rss: r.PeakRSS, took: r.Wall}
}

// inodes counts the distinct files and the bytes they hold in dir.
func inodes(t *testing.T, dir string) (files, distinct int, size int64) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		files++
		if ino := fi.Sys().(*syscall.Stat_t).Ino; !seen[ino] {
			seen[ino] = true
			distinct++
			size += fi.Size()
		}
	}
	return files, distinct, size
}

// Row 2: a bundle whose 10 entries all point at one nested bundle, 5
// levels deep (3.1 KB; the review's 2.3-5.3 KB inputs printed 2.2 M lines,
// 650 MB of JSON, wrote 10,000 files and converted to 152 MB). Each nested
// bundle is described, walked and written once.
func TestSharedNestedBundles(t *testing.T) {
	dir := t.TempDir()
	in := hostile.SharedBundle(10, 5, []byte("leaf payload"))
	os.WriteFile(filepath.Join(dir, "shared.bundle"), in, 0o644)

	// 10 entries a level, each described by 2 lines; one description per
	// level and the 10 leaves; the rest are references.
	c := runAmplified(t, dir, "offload", "inspect", "shared.bundle")
	if c.code != 0 || c.lines > 2*10*5+1 || strings.Count(c.out, ", same bytes as shared.bundle: ") != 9*5 {
		t.Errorf("inspect: exit %d, %d lines; want 0 and at most 101 lines, 45 references:\n%s", c.code, c.lines, c.out)
	}
	c = runAmplified(t, dir, "offload", "inspect", "--json", "shared.bundle")
	var doc struct{ Files []json.RawMessage }
	if c.code != 0 || c.bytes > 64<<10 || json.Unmarshal([]byte(c.out), &doc) != nil ||
		strings.Count(c.out, `"same_as": "shared.bundle: openmp-`) != 9*5 {
		t.Errorf("inspect --json: exit %d, %d bytes; want 0, under 64 KiB and 45 same_as:\n%.2000s", c.code, c.bytes, c.out)
	}
	c = runAmplified(t, dir, "offload", "extract", "--list", "shared.bundle")
	if c.code != 0 || strings.Count(c.out, ".bin\t12\t") != 10 || strings.Count(c.out, "\tsame bytes as ") != 9 {
		t.Errorf("extract --list: exit %d; want the 10 leaves once each:\n%s", c.code, c.out)
	}
	c = runAmplified(t, dir, "offload", "extract", "-o", "out", "shared.bundle")
	if files, distinct, _ := inodes(t, filepath.Join(dir, "out")); c.code != 0 || files != 10 || distinct != 1 {
		t.Errorf("extract -o: exit %d, %d files of %d inodes; want 10 of 1:\n%s", c.code, files, distinct, c.out)
	}
	c = runAmplified(t, dir, "offload", "convert", "--to=offload-binary", "-o", "shared.ob", "shared.bundle")
	if fi, err := os.Stat(filepath.Join(dir, "shared.ob")); c.code != 0 || err != nil || fi.Size() > 64<<10 {
		t.Errorf("convert: exit %d, %v; want a small OffloadBinary:\n%s", c.code, err, c.out)
	}
}

// sameBytesBundle is a bundle of n entries over the same size bytes, or
// with shift > 0 over ranges starting shift bytes apart (distinct,
// overlapping payloads).
func sameBytesBundle(n, size, shift int) []byte {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx%d", 1000+i)
	}
	off := hostile.BundleHeaderSize(ids)
	es := make([]hostile.BundleEntry, n)
	for i, id := range ids {
		es[i] = hostile.BundleEntry{ID: id, Offset: off + uint64(i*shift), Size: uint64(size)}
	}
	return hostile.Bundle(es, bytes.Repeat([]byte{7}, size+n*shift))
}

// sameBytesCOFF is a COFF object of n .llvm.offloading sections whose
// section table entries all point at one OffloadBinary of size bytes.
func sameBytesCOFF(t *testing.T, n, size int) []byte {
	var bin bytes.Buffer
	_, err := offloadbin.WriteEntries(&bin, 1, []offloadbin.Entry{{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadOpenMP,
		Strings: []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx90a"}},
		Image:   bytes.NewReader(bytes.Repeat([]byte{7}, size)), Size: int64(size)}}, offloadbin.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	secs := []hostile.COFFSection{{Name: ".llvm.offloading", Data: bin.Bytes()}}
	for i := 1; i < n; i++ {
		secs = append(secs, hostile.COFFSection{Name: ".llvm.offloading", Data: []byte{0}})
	}
	b, offs := hostile.COFFObject(0x8664, 0, false, secs)
	for i := 1; i < n; i++ { // SizeOfRawData and PointerToRawData of section i
		e := b[20+i*40:]
		binary.LittleEndian.PutUint32(e[16:], uint32(bin.Len()))
		binary.LittleEndian.PutUint32(e[20:], uint32(offs[0]))
	}
	return b
}

// Row 3: payloads over the same bytes (bundle entries; COFF sections) are
// written once, hard-linked under every name; where they cannot be
// (copies into an archive or a conversion, the llvm-offload-binary
// drop-in, distinct overlapping ranges) the output budget refuses what the
// input does not hold (the review: 2.0 GB written from 1.17 MB in 7.2 s).
func TestOverlappingPayloads(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "same.bundle"), sameBytesBundle(2000, 1<<20, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "shifted.bundle"), sameBytesBundle(2000, 1<<20, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "same.obj"), sameBytesCOFF(t, 2000, 1<<20), 0o644)

	c := runAmplified(t, dir, "offload", "extract", "-o", "out", "same.bundle")
	files, distinct, size := inodes(t, filepath.Join(dir, "out"))
	if c.code != 0 || files != 2000 || distinct != 1 || size != 1<<20 {
		t.Errorf("extract -o: exit %d, %d files of %d inodes, %d bytes; want 2000 of 1, 1 MiB:\n%.1000s", c.code, files, distinct, size, c.out)
	}
	// The sections are one container met 2000 times: one image, and a note
	// for each repeat.
	c = runAmplified(t, dir, "offload", "extract", "-o", "out-obj", "same.obj")
	files, _, size = inodes(t, filepath.Join(dir, "out-obj"))
	if c.code != 0 || files != 1 || size != 1<<20 || strings.Count(c.out, ": same bytes as same.obj: .llvm.offloading: their images are taken once") < 100 {
		t.Errorf("extract -o of the COFF object: exit %d, %d files, %d bytes; want one of 1 MiB:\n%.1000s", c.code, files, size, c.out)
	}
	refused := "output would be more than"
	for _, argv := range [][]string{
		{"offload", "extract", "-o", "out-shifted", "shifted.bundle"},
		{"offload", "extract", "--archive=same.a", "same.bundle"},
		{"offload", "convert", "--to=offload-binary", "-o", "same.ob", "same.bundle"},
		{"llvm-offload-binary", "same.obj", "--image=arch=gfx90a"},
	} {
		c := runAmplified(t, dir, argv...)
		if c.code != 1 || !strings.Contains(c.out, refused) || !strings.Contains(c.out, "--max-output-size") {
			t.Errorf("%q: exit %d, %.600s; want the output budget to refuse, naming the flag", argv, c.code, c.out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*gfx90a*")); len(left) != 0 {
		t.Errorf("the drop-in wrote %d files before refusing", len(left))
	}
	// Raised, the budget lets the copies through.
	// Three copies of 1 MiB are more than a 1 MiB input holds, unless the
	// budget is raised.
	os.WriteFile(filepath.Join(dir, "three.bundle"), sameBytesBundle(3, 1<<20, 0), 0o644)
	if c = runAmplified(t, dir, "offload", "extract", "--archive=three.a", "three.bundle"); c.code != 1 || !strings.Contains(c.out, refused) {
		t.Errorf("three copies: exit %d: %s", c.code, c.out)
	}
	if c = runAmplified(t, dir, "offload", "extract", "--max-output-size=4M", "--archive=three.a", "three.bundle"); c.code != 0 {
		t.Errorf("--max-output-size=4M: exit %d: %s", c.code, c.out)
	}
}

// Row 9: names with terminal escapes and newlines are printed escaped by
// inspect and extract --list, one line each; JSON keeps them exact.
func TestHostileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	id := "hipv4-amdgcn-amd-amdhsa--gfx906\x1b[2J\nforged: bundle"
	off := hostile.BundleHeaderSize([]string{id})
	os.WriteFile(filepath.Join(dir, "names.bundle"), hostile.Bundle([]hostile.BundleEntry{{ID: id, Offset: off, Size: 4}}, []byte("code")), 0o644)
	for _, argv := range [][]string{
		{"offload", "inspect", "names.bundle"},
		{"offload", "extract", "--list", "names.bundle"},
	} {
		c := runAmplified(t, dir, argv...)
		if strings.ContainsAny(c.out, "\x1b") || strings.Contains(c.out, "\nforged") || !strings.Contains(c.out, `\x1b[2J\nforged: bundle`) {
			t.Errorf("%q: printed %q; want the name escaped", argv, c.out)
		}
	}
	c := runAmplified(t, dir, "offload", "inspect", "--json", "names.bundle")
	var doc struct {
		Files []struct {
			Children []struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(c.out), &doc); err != nil || doc.Files[0].Children[0].Name != id {
		t.Errorf("--json: %v, %q", err, c.out)
	}
}

// Row 11: response files of a few hundred bytes that name each other ten
// times a level (10^8 arguments: the review's 2.35 GB) are refused.
func TestResponseFileBlowUpRefused(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 8; i++ {
		body := strings.Repeat(fmt.Sprintf("@%d ", i+1), 10)
		if i == 7 {
			body = strings.Repeat("x ", 10)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte(body), 0o644)
	}
	for _, argv := range [][]string{
		{"offload", "inspect", "@0"},
		{"offload", "extract", "--list", "@0"},
		{"llvm-offload-binary", "@0"},
		{"clang-offload-bundler", "@0"},
	} {
		c := runAmplified(t, dir, argv...)
		if c.code == 0 || !strings.Contains(c.out, "response files expand to more than 1048576 arguments") {
			t.Errorf("%q: exit %d, %.500s; want the expansion refused", argv, c.code, c.out)
		}
	}
}

// Row 4: 20,000 images that all get one file name (the review's 589 KB
// bundle: 57 s to name) are listed and archived within the caps; naming
// itself is timed in lib/extract TestManyImagesOfOneNameNamedFast.
func TestManyImagesOfOneName(t *testing.T) {
	dir := t.TempDir()
	const n = 20000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("e%d", i) // no target: every image is named many.bin
	}
	off := hostile.BundleHeaderSize(ids)
	es := make([]hostile.BundleEntry, n)
	for i, id := range ids {
		es[i] = hostile.BundleEntry{ID: id, Offset: off + uint64(i), Size: 1}
	}
	os.WriteFile(filepath.Join(dir, "many.bundle"), hostile.Bundle(es, make([]byte, n)), 0o644)
	c := runAmplified(t, dir, "offload", "extract", "--list", "many.bundle")
	if c.code != 0 || c.lines != n || !strings.Contains(c.out, "many.1.bin\t1\tmany.bundle: e1\n") {
		t.Errorf("--list: exit %d, %d lines:\n%.300s", c.code, c.lines, c.out)
	}
	if c = runAmplified(t, dir, "offload", "extract", "--archive=many.a", "many.bundle"); c.code != 0 {
		t.Errorf("--archive: exit %d: %s", c.code, c.out)
	}
}
