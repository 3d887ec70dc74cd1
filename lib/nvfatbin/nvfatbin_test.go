package nvfatbin

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

const kernel = `extern "C" __global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
`

var archs = []int{52, 60, 70, 75, 80, 86}

// cudaImages compiles the kernel to PTX once (compute_52) and to a cubin per
// arch with ptxas.
func cudaImages(t *testing.T, dir string) (ptx string, cubins map[int]string) {
	llvmtest.Need(t, "nvcc", "ptxas", "fatbinary", "cuobjdump")
	src := llvmtest.WriteFile(t, dir, "k.cu", []byte(kernel))
	ptx = filepath.Join(dir, "k.ptx")
	llvmtest.Run(t, dir, "nvcc", "-ptx", "-arch=compute_52", src, "-o", ptx)
	cubins = map[int]string{}
	for _, a := range archs {
		cubins[a] = filepath.Join(dir, fmt.Sprintf("k%d.cubin", a))
		llvmtest.Run(t, dir, "ptxas", fmt.Sprintf("-arch=sm_%d", a), ptx, "-o", cubins[a])
	}
	return ptx, cubins
}

// listing is cuobjdump's view of a fat binary: "elf sm_80" and "ptx sm_52"
// lines in its order, read from -lelf and -lptx.
var listLine = regexp.MustCompile(`^(ELF|PTX) file\s+\d+: .*\.(sm_\d+)\.(cubin|ptx)$`)

func cuobjdumpList(t *testing.T, dir, fatbin string) []string {
	var got []string
	for _, flag := range []string{"-lelf", "-lptx"} {
		for _, line := range strings.Split(llvmtest.Run(t, dir, "cuobjdump", flag, fatbin), "\n") {
			if m := listLine.FindStringSubmatch(line); m != nil {
				got = append(got, strings.ToLower(m[1])+" "+m[2])
			}
		}
	}
	return got
}

// TestReadMatchesCuobjdump builds fat binaries with NVIDIA's fatbinary over
// random sets of cubins and PTX, compressed or not, and requires our
// reading to agree with cuobjdump's: the same entries, and for each the
// bytes cuobjdump extracts (stored as is) or their size (compressed).
func TestReadMatchesCuobjdump(t *testing.T) {
	dir := t.TempDir()
	ptx, cubins := cudaImages(t, dir)
	rng := rand.New(rand.NewSource(17))
	entries, compressed := 0, 0
	defer func() { t.Logf("%d entries compared, %d of them compressed", entries, compressed) }()
	for c := 0; c < 12; c++ {
		args := []string{"-64", "--create=f.fatbin"}
		var want []string
		for _, a := range archs {
			if rng.Intn(2) == 0 || len(want) == 0 && a == archs[len(archs)-1] {
				args = append(args, fmt.Sprintf("--image=profile=sm_%d,file=%s", a, cubins[a]))
				want = append(want, fmt.Sprintf("elf sm_%d", a))
			}
		}
		if rng.Intn(2) == 0 {
			args = append(args, "--image=profile=compute_52,file="+ptx)
		}
		switch c % 3 {
		case 1:
			args = append(args, "--compress=false")
		case 2:
			args = append(args, "--compress-all")
		}
		llvmtest.Run(t, dir, "fatbinary", args...)
		fb := filepath.Join(dir, "f.fatbin")
		b := llvmtest.ReadFile(t, fb)
		es, err := ReadAll(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("case %d %q: %v", c, args, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, fmt.Sprintf("%s %s", e.Kind, e.ArchName()))
			entries++
			if e.Compressed {
				compressed++
			}
		}
		sort.Strings(got)
		oracle := cuobjdumpList(t, dir, fb)
		sort.Strings(oracle)
		if strings.Join(got, ",") != strings.Join(oracle, ",") {
			t.Errorf("case %d %q: we read %v, cuobjdump lists %v", c, args, got, oracle)
			continue
		}
		compareExtracted(t, dir, fb, b, es)
	}
}

// compareExtracted checks each ELF entry against what cuobjdump -xelf
// writes: the same bytes when stored as is, the declared size when
// compressed.
func compareExtracted(t *testing.T, dir, fb string, b []byte, es []Entry) {
	out := filepath.Join(dir, "x")
	os.RemoveAll(out)
	os.Mkdir(out, 0o755)
	llvmtest.Run(t, out, "cuobjdump", "-xelf", "all", fb)
	files, _ := filepath.Glob(filepath.Join(out, "*.cubin"))
	byArch := map[string][]byte{}
	for _, f := range files {
		m := regexp.MustCompile(`\.(sm_\d+)\.cubin$`).FindStringSubmatch(f)
		byArch[m[1]] = llvmtest.ReadFile(t, f)
	}
	for _, e := range es {
		if e.Kind != KindELF {
			continue
		}
		want, ok := byArch[e.ArchName()]
		if !ok {
			t.Errorf("cuobjdump extracted no %s", e.ArchName())
			continue
		}
		if e.Compressed {
			if e.UncompressedSize != int64(len(want)) {
				t.Errorf("%s: uncompressed size %d, cuobjdump extracted %d bytes", e.ArchName(), e.UncompressedSize, len(want))
			}
			continue
		}
		got := b[e.Offset : e.Offset+e.Size]
		if !bytes.Equal(got, want) {
			t.Errorf("%s: our payload (%d bytes) differs from cuobjdump's cubin (%d bytes)", e.ArchName(), len(got), len(want))
		}
	}
}

func TestReadRejects(t *testing.T) {
	hdr := func(body uint64) []byte {
		b := []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0}
		for i := 0; i < 8; i++ {
			b = append(b, byte(body>>(8*i)))
		}
		return b
	}
	entry := func(hs uint32, payload uint64) []byte {
		e := make([]byte, 64)
		e[0] = 2
		e[4], e[5], e[6], e[7] = byte(hs), byte(hs>>8), byte(hs>>16), byte(hs>>24)
		for i := 0; i < 8; i++ {
			e[8+i] = byte(payload >> (8 * i))
		}
		return e
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"short", hdr(0)[:10], "truncated header"},
		{"body past end", hdr(1 << 40), "run past the end"},
		{"entry header size 0", append(hdr(64), entry(0, 0)...), "entry header size 0"},
		{"payload past end", append(hdr(64), entry(64, 1<<62)...), "runs past the container"},
		{"entry header too big", append(hdr(64), entry(entryMax+1, 0)...), "outside 64..1048576"},
		{"entry header past the container", append(hdr(64), entry(4097, 0)...), "entry header runs past the container"},
	} {
		_, err := ReadAll(bytes.NewReader(c.in), int64(len(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(seedFatbin())
	// The robustness review's hostile containers, small: long strings in large headers,
	// and many LZ4-compressed entries.
	f.Add(hostile.NVFatbin([]hostile.NVEntry{{Kind: 1, Arch: 80, Header: 4096, LongStrings: true, Payload: []byte("x\x00")}}))
	f.Add(hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 1, Arch: 80, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx\x00")), Inflated: 4},
		{Kind: 2, Arch: 70, Header: 72, Payload: hostile.LZ4Literals([]byte("\x7fELF")), Inflated: 4},
	}))
	// CUDA 13's: ZSTD entries (every one in k1.5), LZ4 of LZ4 1.10 (k1.6),
	// and a ZSTD entry that inflates past what it declares.
	for _, n := range []string{"k1.1", "k1.5", "k1.6", "k1.12"} {
		b, err := os.ReadFile("testdata/cuda13/fatbin/" + n + ".fatbin")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(hostile.NVFatbin([]hostile.NVEntry{{Kind: 1, Arch: 90, Header: 80, Payload: hostile.ZstdFrame([]byte("ptx\x00"), 1<<20), Inflated: 4, Zstd: true}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := ReadAll(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, e := range es {
			if e.Offset < 0 || e.Size < 0 || e.Offset+e.Size > int64(len(b)) || len(e.Header) < entryMin {
				t.Fatalf("entry out of bounds: %+v (input %d bytes)", e, len(b))
			}
			// Decoding the image must fail cleanly or give at most the
			// declared size.
			if im, err := e.Image(bytes.NewReader(b)); err == nil && int64(len(im)) > max(e.Size, e.UncompressedSize) {
				t.Fatalf("image of %d bytes from an entry of %d (%d inflated)", len(im), e.Size, e.UncompressedSize)
			}
		}
		again, _ := ReadAll(bytes.NewReader(b), int64(len(b)))
		if len(again) != len(es) {
			t.Fatalf("second read found %d entries, first %d", len(again), len(es))
		}
	})
}

// seedFatbin is one stored sm_80 entry of 8 bytes and one compressed PTX
// entry (5 bytes stored, 9 inflated), laid out as CUDA 11.8's fatbinary
// lays them out.
func seedFatbin() []byte {
	b := []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 64 + 8 + 64 + 8, 0, 0, 0, 0, 0, 0, 0}
	elf := make([]byte, 64)
	elf[0], elf[2], elf[3], elf[4], elf[8], elf[24], elf[26], elf[28], elf[40] = 2, 1, 1, 64, 8, 7, 1, 80, 0x11
	ptx := make([]byte, 64)
	ptx[0], ptx[2], ptx[3], ptx[4], ptx[8], ptx[16], ptx[28], ptx[40], ptx[41], ptx[56] = 1, 1, 1, 64, 8, 5, 80, 0x11, 0x20, 9
	b = append(append(b, elf...), "\x7fELF\x02\x01\x01\x33"...)
	return append(append(b, ptx...), "zzzzz\x00\x00\x00"...)
}

func TestSeedParses(t *testing.T) {
	b := seedFatbin()
	es, err := ReadAll(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(es) != 2 {
		t.Fatalf("%v, %d entries", err, len(es))
	}
	if e := es[0]; e.Kind != KindELF || e.ArchName() != "sm_80" || e.Compressed || e.Size != 8 || e.Major != 1 || e.Minor != 7 {
		t.Errorf("entry 0: %+v", e)
	}
	if e := es[1]; e.Kind != KindPTX || !e.Compressed || e.Size != 5 || e.UncompressedSize != 9 || string(b[e.Offset:e.Offset+e.Size]) != "zzzzz" {
		t.Errorf("entry 1: %+v", e)
	}
}
