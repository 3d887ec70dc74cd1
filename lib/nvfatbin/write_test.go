package nvfatbin

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// writeArchs are the targets of the writer's oracle tests: cubins from
// ptxas for each, PTX for a few.
var writeArchs = []int{52, 60, 61, 70, 75, 80, 86, 89, 90}

type corpus struct {
	dir    string
	cubins map[int]string // sm -> file
	ptx    map[int]string // compute -> file
}

func newCorpus(t *testing.T) *corpus {
	llvmtest.Need(t, "nvcc", "ptxas", "fatbinary", "cuobjdump")
	c := &corpus{dir: t.TempDir(), cubins: map[int]string{}, ptx: map[int]string{}}
	src := llvmtest.WriteFile(t, c.dir, "k.cu", []byte(kernel))
	for _, a := range []int{52, 70, 80} {
		c.ptx[a] = filepath.Join(c.dir, fmt.Sprintf("k%d.ptx", a))
		llvmtest.Run(t, c.dir, "nvcc", "-ptx", fmt.Sprintf("-arch=compute_%d", a), src, "-o", c.ptx[a])
	}
	for _, a := range writeArchs {
		c.cubins[a] = filepath.Join(c.dir, fmt.Sprintf("k%d.cubin", a))
		llvmtest.Run(t, c.dir, "ptxas", fmt.Sprintf("-arch=sm_%d", a), c.ptx[52], "-o", c.cubins[a])
	}
	return c
}

// writeCase is one set of images and options, given both to fatbinary
// and to Write.
type writeCase struct {
	args   []string
	images []Image
	opt    WriteOptions
}

func (c *corpus) randomCase(t *testing.T, rng *rand.Rand) writeCase {
	var w writeCase
	for n := 1 + rng.Intn(5); len(w.images) < n; {
		if rng.Intn(3) == 0 {
			a := []int{52, 70, 80}[rng.Intn(3)]
			w.add(t, KindPTX, a, c.ptx[a])
		} else {
			a := writeArchs[rng.Intn(len(writeArchs))]
			w.add(t, KindELF, a, c.cubins[a])
		}
	}
	switch rng.Intn(3) {
	case 1:
		w.opt.NoCompress = true
		w.args = append(w.args, "--compress=false")
	case 2:
		w.opt.CompressAll = true
		w.args = append(w.args, "--compress-all")
	}
	if rng.Intn(4) == 0 {
		w.opt.Debug = true
		w.args = append(w.args, "-g")
	}
	if rng.Intn(4) == 0 {
		// The long one makes an entry header of over 4 KiB.
		w.opt.Ident = []string{"k.cu", "a/b/kernel_source.cu", "12345678", strings.Repeat("long/", 1000)}[rng.Intn(4)]
		w.args = append(w.args, "--ident="+w.opt.Ident)
	}
	if rng.Intn(4) == 0 {
		w.opt.PTXASOptions = []string{"-O3", "-v", "--maxrregcount=32 -O2"}[rng.Intn(3)]
		w.args = append(w.args, "--cmdline="+w.opt.PTXASOptions)
	}
	return w
}

func (w *writeCase) add(t *testing.T, k Kind, arch int, file string) {
	profile := fmt.Sprintf("sm_%d", arch)
	if k == KindPTX {
		profile = fmt.Sprintf("compute_%d", arch)
	}
	w.args = append(w.args, fmt.Sprintf("--image=profile=%s,file=%s", profile, file))
	w.images = append(w.images, Image{Kind: k, Arch: arch, Data: llvmtest.ReadFile(t, file), Name: file})
}

// fatbinary runs NVIDIA's tool on the case and returns its output.
func (c *corpus) fatbinary(t *testing.T, w writeCase) []byte {
	out := filepath.Join(c.dir, "nv.fatbin")
	os.Remove(out)
	llvmtest.Run(t, c.dir, "fatbinary", append([]string{"-64", "--create=" + out}, w.args...)...)
	return llvmtest.ReadFile(t, out)
}

// cuobjdumpAll is `cuobjdump -all` of b with the file's name taken out.
func cuobjdumpAll(t *testing.T, dir, name string, b []byte) string {
	p := llvmtest.WriteFile(t, dir, name, b)
	return strings.ReplaceAll(llvmtest.Run(t, dir, "cuobjdump", "-all", p), name, "X")
}

// TestWriteMatchesFatbinary: for random sets of cubins (sm_52..sm_90) and
// PTX, in random order, with and without compression, debug, identifier
// and ptxas options, Write gives fatbinary's bytes, and cuobjdump lists
// ours as it lists fatbinary's.
func TestWriteMatchesFatbinary(t *testing.T) {
	c := newCorpus(t)
	rng := rand.New(rand.NewSource(14))
	entries, compressed := 0, 0
	for i := 0; i < 40; i++ {
		w := c.randomCase(t, rng)
		want := c.fatbinary(t, w)
		got, err := Write(w.images, w.opt)
		if err != nil {
			t.Fatalf("case %d %q: %v", i, w.args, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("case %d %q: our %d bytes differ from fatbinary's %d: %s", i, w.args, len(got), len(want), llvmtest.FirstDiff(got, want))
			continue
		}
		if i%8 == 0 { // equal bytes list alike; show it on some
			if g, w := cuobjdumpAll(t, c.dir, "ours.fatbin", got), cuobjdumpAll(t, c.dir, "nv.fatbin", want); g != w {
				t.Errorf("case %d: cuobjdump lists ours as\n%s\nand fatbinary's as\n%s", i, g, w)
			}
		}
		es, err := ReadAll(bytes.NewReader(got), int64(len(got)))
		if err != nil || len(es) != len(w.images) {
			t.Fatalf("case %d: read back %d entries, %v", i, len(es), err)
		}
		for j := range es {
			entries++
			if es[j].Compressed {
				compressed++
			}
		}
	}
	t.Logf("%d entries written as fatbinary writes them, %d of them compressed", entries, compressed)
}

// TestMinifyPTXMatchesFatbinary gives fatbinary random text made of the
// bytes its PTX rules care about (blanks, newlines, quotes, backslashes,
// slashes, stars) and requires MinifyPTX to store what it stores. All
// texts go in one fat binary, uncompressed, and the whole is compared.
func TestMinifyPTXMatchesFatbinary(t *testing.T) {
	llvmtest.Need(t, "fatbinary")
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 5; round++ {
		minifyRound(t, dir, rng, 80)
	}
}

var ptxPieces = []string{" ", "  ", "\t", "\n", "\r", "\v", "\f", "\"", "\\", "/", "//", "*", "/*", "*/", "x", "ab", ".reg", "\x00", "\n\t", " \t ", "\r\n"}

func minifyRound(t *testing.T, dir string, rng *rand.Rand, n int) {
	var images []Image
	args := []string{"-64", "--create=" + filepath.Join(dir, "nv.fatbin"), "--compress=false"}
	for i := 0; i < n; i++ {
		var b strings.Builder
		if p := ptxPieces[rng.Intn(len(ptxPieces))]; rng.Intn(2) == 0 && p != "\x00" {
			b.WriteString(p) // (fatbinary looks for .version before any NUL)
		}
		b.WriteString(".version 7.8\n")
		for k := rng.Intn(60); k > 0; k-- {
			b.WriteString(ptxPieces[rng.Intn(len(ptxPieces))])
		}
		// fatbinary reads past its buffer for a comment that ends the
		// file (see ptx.go): end every text with a newline.
		b.WriteString("\nend\n")
		name := fmt.Sprintf("p%d.ptx", i)
		llvmtest.WriteFile(t, dir, name, []byte(b.String()))
		args = append(args, "--image=profile=compute_52,file="+filepath.Join(dir, name))
		images = append(images, Image{Kind: KindPTX, Arch: 52, Data: []byte(b.String()), Name: name})
	}
	llvmtest.Run(t, dir, "fatbinary", args...)
	want := llvmtest.ReadFile(t, filepath.Join(dir, "nv.fatbin"))
	got, err := Write(images, WriteOptions{NoCompress: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		es, _ := ReadAll(bytes.NewReader(want), int64(len(want)))
		for i, e := range es {
			nv := want[e.Offset : e.Offset+e.Size]
			if ours := padded(MinifyPTX(images[i].Data)); !bytes.Equal(ours, nv) {
				t.Errorf("text %d %q:\nfatbinary stores %q\nwe store         %q", i, images[i].Data, nv, ours)
			}
		}
		t.Fatalf("our fat binary differs from fatbinary's: %s", llvmtest.FirstDiff(got, want))
	}
}

func padded(b []byte) []byte { return append(b, make([]byte, pad8(len(b))-len(b))...) }

// TestCompressMatchesFatbinary makes fatbinary compress many payloads
// (--compress-all): a real cubin with random data after it, of sizes and
// kinds that exercise every path of the LZ4 match finder (runs, repeats
// farther than 64 KiB, incompressible bytes, long literals). Our bytes
// must be its bytes, and our decompression must give what cuobjdump
// -xelf writes.
func TestCompressMatchesFatbinary(t *testing.T) {
	c := newCorpus(t)
	rng := rand.New(rand.NewSource(3))
	cubin := llvmtest.ReadFile(t, c.cubins[80])
	var images []Image
	args := []string{"-64", "--create=" + filepath.Join(c.dir, "nv.fatbin"), "--compress-all"}
	for i := 0; i < 24; i++ {
		b := append([]byte(nil), cubin...)
		b = append(b, randomPayload(rng, []int{0, 1, 7, 100, 4000, 70000, 200000}[i%7])...)
		name := fmt.Sprintf("c%d.cubin", i)
		llvmtest.WriteFile(t, c.dir, name, b)
		args = append(args, "--image=profile=sm_80,file="+filepath.Join(c.dir, name))
		images = append(images, Image{Kind: KindELF, Arch: 80, Data: b, Name: name})
	}
	llvmtest.Run(t, c.dir, "fatbinary", args...)
	want := llvmtest.ReadFile(t, filepath.Join(c.dir, "nv.fatbin"))
	got, err := Write(images, WriteOptions{CompressAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("our fat binary differs from fatbinary's: %s", llvmtest.FirstDiff(got, want))
	}
	es, err := ReadAll(bytes.NewReader(want), int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range es {
		b, err := es[i].Image(bytes.NewReader(want))
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !bytes.Equal(b, cubin) && !bytes.HasPrefix(images[i].Data, b) {
			t.Errorf("entry %d: decompressed image is not a prefix of the input", i)
		}
	}
	// cuobjdump writes the decompressed cubins; compare with ours.
	out := filepath.Join(c.dir, "x")
	os.Mkdir(out, 0o755)
	llvmtest.Run(t, out, "cuobjdump", "-xelf", "all", filepath.Join(c.dir, "nv.fatbin"))
	for i := range es {
		nv := llvmtest.ReadFile(t, filepath.Join(out, fmt.Sprintf("nv.%d.sm_80.cubin", i+1)))
		ours, _ := es[i].Image(bytes.NewReader(want))
		if !bytes.Equal(ours, nv) {
			t.Errorf("entry %d: our decompressed cubin (%d bytes) differs from cuobjdump's (%d)", i, len(ours), len(nv))
		}
	}
}

// randomPayload is n bytes of one of several kinds.
func randomPayload(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	switch rng.Intn(4) {
	case 0: // incompressible
		rng.Read(b)
	case 1: // small alphabet: many short matches
		for i := range b {
			b[i] = "ab\x00"[rng.Intn(3)]
		}
	case 2: // a block repeated at distances beyond LZ4's window
		blk := make([]byte, 1+rng.Intn(70000))
		rng.Read(blk)
		for i := range b {
			b[i] = blk[i%len(blk)]
		}
	default: // runs
		for i := 0; i < n; {
			c, k := byte(rng.Intn(4)), 1+rng.Intn(300)
			for ; k > 0 && i < n; k, i = k-1, i+1 {
				b[i] = c
			}
		}
	}
	return b
}

// TestPTXVersionMatchesFatbinary: where fatbinary finds a PTX version, we
// find the same; where it refuses the file, we refuse it.
func TestPTXVersionMatchesFatbinary(t *testing.T) {
	llvmtest.Need(t, "fatbinary")
	dir := t.TempDir()
	for i, text := range []string{
		".version 7.8\n", "// c\n.version 6.4\n", "  .version   7.8 \n", ".version\t7.8", ".version\n7.8\n",
		".version7.8\n", ".version 7.10\n", ".version 7.1x\n", "// .version 6.5\n.version 7.8\n", "xx.version 9.9\n",
		".version 10.12\n", ".version 7\n", ".version 7.\n", ".version .8\n", ".version 07.08\n", ".versionx 6.5\n.version 7.8\n",
		".VERSION 7.8\n", "ab\x00.version 7.8\n", "", ".target sm_52\n", ".version +7.8\n", ".version 7 .8\n",
	} {
		name := fmt.Sprintf("v%d.ptx", i)
		llvmtest.WriteFile(t, dir, name, []byte(text))
		out := filepath.Join(dir, "v.fatbin")
		os.Remove(out)
		r := llvmtest.RunResult(t, dir, nil, "fatbinary", "-64", "--create="+out, "--compress=false", "--image=profile=compute_52,file="+name)
		major, minor, err := PTXVersion([]byte(text))
		if r.Code != 0 {
			if !strings.Contains(r.Stderr, "Could not find ptx version") || err == nil {
				t.Errorf("%q: fatbinary: %s; we read %d.%d, %v", text, r.Stderr, major, minor, err)
			}
			continue
		}
		b := llvmtest.ReadFile(t, out)
		es, rerr := ReadAll(bytes.NewReader(b), int64(len(b)))
		if rerr != nil || err != nil || es[0].Major != major || es[0].Minor != minor {
			t.Errorf("%q: fatbinary stores %+v; we read %d.%d, %v", text, es, major, minor, err)
		}
	}
}
