package inspect_test

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// node mirrors the documented JSON schema of `offload inspect --json`
// (docs/inspect.md); decoding with DisallowUnknownFields pins it.
type node struct {
	Format      string       `json:"format"`
	Name        string       `json:"name"`
	Offset      int64        `json:"offset"`
	Size        int64        `json:"size"`
	Space       string       `json:"space"`
	Detail      string       `json:"detail"`
	Entry       *entry       `json:"entry"`
	Compression *compression `json:"compression"`
	Children    []*node      `json:"children"`
	Error       string       `json:"error"`
}

type entry struct {
	ID          string   `json:"id"`
	OffloadKind string   `json:"offload_kind"`
	Triple      string   `json:"triple"`
	Arch        string   `json:"arch"`
	TargetID    string   `json:"target_id"`
	Features    []string `json:"features"`
	ImageKind   string   `json:"image_kind"`
	Strings     []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"strings"`
	Version int `json:"version"`
}

type compression struct {
	Version          int     `json:"version"`
	Method           string  `json:"method"`
	CompressedSize   int64   `json:"compressed_size"`
	UncompressedSize uint64  `json:"uncompressed_size"`
	Ratio            float64 `json:"ratio"`
	Hash             string  `json:"hash"`
	HashOK           bool    `json:"hash_ok"`
}

// inspectJSON runs offload inspect --json on paths.
func inspectJSON(t *testing.T, dir string, paths ...string) ([]*node, llvmtest.Result) {
	t.Helper()
	r := run(t, dir, nil, append([]string{offloadBin, "inspect", "--json"}, paths...)...)
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	dec.DisallowUnknownFields()
	var doc struct {
		Files []*node `json:"files"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the --json output does not follow the documented schema: %v\n%s", err, r.Stdout)
	}
	return doc.Files, r
}

func walk(n *node, fn func(n, parent *node)) {
	var rec func(n, parent *node)
	rec = func(n, parent *node) {
		fn(n, parent)
		for _, c := range n.Children {
			rec(c, n)
		}
	}
	rec(n, nil)
}

// Every container offload inspect reports in a fixture is checked against
// LLVM: bundle and CCOB entry IDs against clang-offload-bundler-22 -list,
// entry bytes against its -unbundle, OffloadBinary images against
// llvm-objdump-22 --offloading and their bytes against
// llvm-offload-binary-22's extraction, CCOB headers against the bytes and
// an MD5 of the uncompressed bundle; the text output must show every
// entry as LLVM names it.
func TestInspectMatchesLLVM(t *testing.T) {
	llvmtest.Need(t, "clang-offload-bundler-22", "llvm-objdump-22")
	for _, name := range listed {
		t.Run(name, func(t *testing.T) {
			path := fixture(t, name)
			data := llvmtest.ReadFile(t, path)
			files, r := inspectJSON(t, t.TempDir(), path)
			if r.Code != 0 || len(files) != 1 || files[0].Name != path {
				t.Fatalf("inspect failed on a valid file:\n%v", r)
			}
			text := mustRun(t, t.TempDir(), nil, offloadBin, "inspect", path).Stdout
			c := &checker{t: t, data: data, text: text, dir: t.TempDir()}
			walk(files[0], c.check)
			if c.checked == 0 {
				t.Fatalf("no container was cross-checked in %s:\n%s", name, text)
			}
			t.Logf("%d containers cross-checked\n%s", c.checked, text)
		})
	}
}

type checker struct {
	t       *testing.T
	data    []byte // the inspected file
	text    string // its text output
	dir     string
	checked int
}

// bytesOf returns the file bytes of a node in file space.
func (c *checker) bytesOf(n *node) []byte {
	if n.Space != "file" || n.Offset < 0 || n.Offset+n.Size > int64(len(c.data)) {
		c.t.Fatalf("node %s (%s) is not in the file: offset %d size %d space %s", n.Name, n.Format, n.Offset, n.Size, n.Space)
	}
	return c.data[n.Offset : n.Offset+n.Size]
}

func (c *checker) check(n, parent *node) {
	if n.Error != "" {
		c.t.Errorf("%s: error %s", n.Name, n.Error)
	}
	if n.Space != "file" {
		return
	}
	switch n.Format {
	case "bundle":
		c.bundle(n, "o")
	case "text-bundle":
		c.bundle(n, "ll")
	case "ccob":
		c.ccob(n)
	case "offload-binary":
		c.offloadBinary(n)
	}
}

// bundle lists the bundle's bytes with LLVM and unbundles each entry.
func (c *checker) bundle(n *node, typ string) {
	bundler := llvmtest.Tool(c.t, "clang-offload-bundler-22")
	in := llvmtest.WriteFile(c.t, c.dir, "b."+typ, c.bytesOf(n))
	want := lines(mustRun(c.t, c.dir, nil, bundler, "-list", "-type="+typ, "-input="+in).Stdout)
	var got []string
	for _, e := range n.Children {
		got = append(got, e.Entry.ID)
		c.wantEntryText(e.Entry.ID)
		if typ != "o" {
			continue
		}
		out := filepath.Join(c.dir, "entry")
		mustRun(c.t, c.dir, nil, bundler, "-unbundle", "-type=o", "-input="+in, "-targets="+e.Entry.ID, "-output="+out)
		if e.Size != int64(len(llvmtest.ReadFile(c.t, out))) {
			c.t.Errorf("entry %s: inspect says %d bytes, LLVM unbundles %d", e.Entry.ID, e.Size, len(llvmtest.ReadFile(c.t, out)))
		} else if e.Space == "file" && !bytes.Equal(c.bytesOf(e), llvmtest.ReadFile(c.t, out)) {
			c.t.Errorf("entry %s: the bytes at offset %d are not what LLVM unbundles", e.Entry.ID, e.Offset)
		}
	}
	sameSet(c.t, "bundle entry IDs", got, want)
	c.checked++
}

// ccob checks the compression fields against the header bytes and the
// MD5 of the uncompressed bundle, and the entry IDs against LLVM.
func (c *checker) ccob(n *node) {
	b := c.bytesOf(n)
	cm := n.Compression
	le := binary.LittleEndian
	var unc uint64
	var hash []byte
	switch v := le.Uint16(b[4:]); v {
	case 1:
		unc, hash = uint64(le.Uint32(b[8:])), b[12:20]
	case 2:
		unc, hash = uint64(le.Uint32(b[12:])), b[16:24]
	case 3:
		unc, hash = le.Uint64(b[16:]), b[24:32]
	}
	method := map[uint16]string{0: "zlib", 1: "zstd"}[le.Uint16(b[6:])]
	wantHash := fmt.Sprintf("0x%016x", le.Uint64(hash))
	if cm == nil || cm.Version != int(le.Uint16(b[4:])) || cm.Method != method || cm.UncompressedSize != unc ||
		cm.Hash != wantHash || !cm.HashOK || cm.CompressedSize != int64(len(b)) {
		c.t.Errorf("CCOB at %d: inspect says %+v; header: version %d, method %s, %d bytes uncompressed, hash %s, %d bytes in all",
			n.Offset, cm, le.Uint16(b[4:]), method, unc, wantHash, len(b))
	}
	if len(n.Children) != 1 || n.Children[0].Format != "bundle" {
		c.t.Fatalf("CCOB at %d: no bundle inside", n.Offset)
	}
	bundler := llvmtest.Tool(c.t, "clang-offload-bundler-22")
	in := llvmtest.WriteFile(c.t, c.dir, "c.o", b)
	want := lines(mustRun(c.t, c.dir, nil, bundler, "-list", "-type=o", "-input="+in).Stdout)
	var got []string
	for _, e := range n.Children[0].Children {
		got = append(got, e.Entry.ID)
		c.wantEntryText(e.Entry.ID)
	}
	sameSet(c.t, "CCOB entry IDs", got, want)
	// The hash is the MD5 of the payload, decompressed here with other code.
	plain := decompress(c.t, b[map[uint16]int{1: 20, 2: 24, 3: 32}[le.Uint16(b[4:])]:], method)
	sum := md5.Sum(plain)
	if got := fmt.Sprintf("0x%016x", le.Uint64(sum[:8])); got != cm.Hash || uint64(len(plain)) != cm.UncompressedSize {
		c.t.Errorf("CCOB: hash %s and %d bytes; the payload decompresses to %d bytes with MD5 prefix %s",
			cm.Hash, cm.UncompressedSize, len(plain), got)
	}
	c.checked++
}

// objdumpImage is one "OFFLOADING IMAGE" block of llvm-objdump-22.
type objdumpImage struct{ kind, arch, triple, producer string }

func parseObjdump(out string) []objdumpImage {
	var ims []objdumpImage
	for _, block := range strings.Split(out, "OFFLOADING IMAGE")[1:] {
		var im objdumpImage
		for _, l := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(l, " ")
			v = strings.TrimSpace(v)
			switch k {
			case "kind":
				im.kind = v
			case "arch":
				im.arch = v
			case "triple":
				im.triple = v
			case "producer":
				im.producer = v
			}
		}
		ims = append(ims, im)
	}
	return ims
}

// offloadBinary compares the images with llvm-objdump-22 and their bytes
// with llvm-offload-binary-22's extraction.
func (c *checker) offloadBinary(n *node) {
	in := llvmtest.WriteFile(c.t, c.dir, "p.bin", c.bytesOf(n))
	want := parseObjdump(mustRun(c.t, c.dir, nil, llvmtest.Tool(c.t, "llvm-objdump-22"), "--offloading", in).Stdout)
	if len(want) != len(n.Children) {
		c.t.Fatalf("offload binary at %d: inspect lists %d images, llvm-objdump-22 %d", n.Offset, len(n.Children), len(want))
	}
	for i, im := range n.Children {
		e, w := im.Entry, want[i]
		if e.ImageKind != w.kind || e.TargetID != w.arch || e.Triple != w.triple || e.OffloadKind != w.producer {
			c.t.Errorf("image %d: inspect says kind %q arch %q triple %q producer %q; llvm-objdump-22 %+v",
				i, e.ImageKind, e.TargetID, e.Triple, e.OffloadKind, w)
		}
		c.wantImageText(w)
		out := filepath.Join(c.dir, "image")
		os.Remove(out)
		mustRun(c.t, c.dir, nil, llvmtest.Tool(c.t, "llvm-offload-binary-22"), in, "--image=file="+out+",triple="+w.triple+",arch="+w.arch)
		if im.Space == "file" && !bytes.Equal(c.bytesOf(im), llvmtest.ReadFile(c.t, out)) {
			c.t.Errorf("image %d: the %d bytes at offset %d are not what llvm-offload-binary-22 extracts", i, im.Size, im.Offset)
		}
	}
	c.checked++
}

// wantEntryText checks the text output shows a bundle entry as its ID
// reads: kind, triple (the empty environment of amdhsa left out), and the
// target ID split into processor and features.
func (c *checker) wantEntryText(id string) {
	parts := strings.SplitN(id, "-", 6)
	line := "kind " + parts[0] + ", triple " + strings.TrimSuffix(strings.Join(parts[1:5], "-"), "-")
	if len(parts) == 6 && parts[5] != "" {
		proc, feats, _ := strings.Cut(parts[5], ":")
		line += ", arch " + proc
		if feats != "" {
			line += ", features " + feats
		}
	}
	c.wantText(id+": ", line)
}

func (c *checker) wantImageText(w objdumpImage) {
	line := "kind " + w.producer + ", triple " + w.triple
	if w.arch != "" {
		proc, feats, _ := strings.Cut(w.arch, ":")
		line += ", arch " + proc
		if feats != "" {
			line += ", features " + feats
		}
	}
	c.wantText("", line+", image "+w.kind)
}

func (c *checker) wantText(head, line string) {
	for _, l := range strings.Split(c.text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), line) && (head == "" || strings.Contains(c.text, head)) {
			return
		}
	}
	c.t.Errorf("the text output has no line %q (after %q):\n%s", line, head, c.text)
}

func decompress(t *testing.T, payload []byte, method string) []byte {
	t.Helper()
	var r io.Reader
	var err error
	switch method {
	case "zlib":
		r, err = zlib.NewReader(bytes.NewReader(payload))
	case "zstd":
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(payload))
		if err == nil {
			defer d.Close()
			r = d
		}
	default:
		t.Fatalf("unknown method %q", method)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decompressing a %s payload: %v", method, err)
	}
	return out
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Errorf("%s: inspect says %q, LLVM %q", what, got, want)
	}
}

// Several files in one run give one document with a node per file, in
// order, and the text output shows them in the same order.
func TestInspectSeveralFiles(t *testing.T) {
	a, b := fixture(t, "bundle.bin"), fixture(t, "packages.bin")
	files, r := inspectJSON(t, t.TempDir(), a, b)
	if r.Code != 0 || len(files) != 2 || files[0].Name != a || files[1].Name != b {
		t.Fatalf("two files:\n%v", r)
	}
	if files[0].Format != "bundle" || files[1].Format != "offload-binary" {
		t.Errorf("formats %s, %s", files[0].Format, files[1].Format)
	}
	text := mustRun(t, t.TempDir(), nil, offloadBin, "inspect", a, b).Stdout
	if i, j := strings.Index(text, a+": bundle"), strings.Index(text, b+": offload-binary"); i < 0 || j < i {
		t.Errorf("text output does not list %s then %s:\n%s", a, b, text)
	}
}

// A missing file and usage errors: a message and a non-zero exit.
func TestInspectUsage(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, nil, offloadBin, "inspect", "missing.o")
	if r.Code != 1 || !strings.Contains(r.Stderr, "missing.o") {
		t.Errorf("missing file:\n%v", r)
	}
	if r := run(t, dir, nil, offloadBin, "inspect"); r.Code != 2 || !strings.Contains(r.Stdout, "USAGE") {
		t.Errorf("no file:\n%v", r)
	}
	if r := run(t, dir, nil, offloadBin, "inspect", "--max-depth=0", "x"); r.Code != 2 {
		t.Errorf("--max-depth=0:\n%v", r)
	}
	if r := run(t, dir, nil, offloadBin, "inspect", "--bogus", "x"); r.Code != 2 || !strings.Contains(r.Stderr, "Unknown command line argument '--bogus'") {
		t.Errorf("unknown option:\n%v", r)
	}
}

// --max-depth stops descending and says so.
func TestInspectMaxDepth(t *testing.T) {
	path := fixture(t, "nested.bin")
	files, r := inspectJSON(t, t.TempDir(), "--max-depth=1", path)
	var deepest string
	walk(files[0], func(n, _ *node) {
		if n.Error != "" {
			deepest = n.Error
		}
	})
	if r.Code != 1 || !strings.Contains(deepest, "nesting deeper than 1") {
		t.Errorf("--max-depth=1 on a nested file: %q\n%v", deepest, r)
	}
}
