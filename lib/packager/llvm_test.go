package packager

// Cross-checks against the LLVM 22 tools. Each test runs a bounded number of
// tool invocations (about 150 in all).

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

func needTool(t *testing.T, name string) string {
	t.Helper()
	return llvmtest.Tool(t, name)
}

type toolResult struct {
	stdout, stderr string
	err            error
}

func runTool(t *testing.T, dir, tool string, args ...string) toolResult {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return toolResult{o.String(), e.String(), err}
}

// randomCase writes random image files into dir and returns --image values
// that package them.
type randomCase struct {
	specs []string
	files []string
}

var (
	keyPool = []string{"triple", "arch", "kind", "feature", "features", "version", "format",
		"link-opts", "compile-opts", "producer", "x", "y", "abc", "bc", "c", "", "arch2", "sm_90"}
	kindPool = []string{"openmp", "cuda", "hip", "sycl", "bogus", "", "HIP"}
	extPool  = []string{".o", ".bc", ".cubin", ".fatbin", ".s", ".spv", "", ".txt", ".O", ".tar.o", ".ptx"}
)

func randString(rng *rand.Rand, charset string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = charset[rng.Intn(len(charset))]
	}
	return string(b)
}

const keyChars = "abcdefghijklmnopqrstuvwxyz0123456789_-.:+"
const valChars = keyChars + "=ABCXYZ /~"

func randKey(rng *rand.Rand) string {
	switch rng.Intn(4) {
	case 0, 1:
		return keyPool[rng.Intn(len(keyPool))]
	case 2:
		return randString(rng, keyChars, 1+rng.Intn(12))
	default: // long keys exercise the >64-byte hash path
		return randString(rng, keyChars, 1+rng.Intn(150))
	}
}

func randValue(rng *rand.Rand, prev []string) string {
	if len(prev) > 0 && rng.Intn(4) == 0 { // a suffix of an earlier string
		p := prev[rng.Intn(len(prev))]
		return p[rng.Intn(len(p)+1):]
	}
	return randString(rng, valChars, rng.Intn(40))
}

func newRandomCase(rng *rand.Rand, dir string) randomCase {
	var c randomCase
	nfiles := 1 + rng.Intn(4)
	for i := 0; i < nfiles; i++ {
		name := fmt.Sprintf("img%d%s", i, extPool[rng.Intn(len(extPool))])
		// The leading 'D' keeps LLVM's archive writer from taking random
		// data for a COFF object ("\0\0...") and failing to parse it.
		data := []byte("D" + randString(rng, "\x00\x01abc\xff", rng.Intn(300)))
		switch rng.Intn(6) {
		case 0:
			data = append([]byte("BC\xc0\xde"), data...)
		case 1:
			data = append([]byte("\xde\xc0\x17\x0b"), data...)
		case 2:
			data = nil
		}
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		c.files = append(c.files, name)
	}
	nspecs := 1 + rng.Intn(3)
	for s := 0; s < nspecs; s++ {
		var pieces, seen []string
		nf := 1 + rng.Intn(2)
		for i := 0; i < nf; i++ {
			pieces = append(pieces, "file="+c.files[rng.Intn(len(c.files))])
		}
		nkeys := rng.Intn(8)
		if rng.Intn(6) == 0 {
			nkeys = 40 + rng.Intn(60) // grow the DenseMap past 64 buckets
		}
		for i := 0; i < nkeys; i++ {
			k := randKey(rng)
			if k == "file" {
				k = "files"
			}
			var v string
			if k == "kind" {
				v = kindPool[rng.Intn(len(kindPool))]
			} else {
				v = randValue(rng, seen)
			}
			seen = append(seen, k, v)
			if rng.Intn(15) == 0 && v == "" {
				pieces = append(pieces, k) // no '='
			} else {
				pieces = append(pieces, k+"="+v)
			}
		}
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		c.specs = append(c.specs, strings.Join(pieces, ","))
	}
	return c
}

func packageOurs(t *testing.T, dir string, specs []string) []byte {
	t.Helper()
	src, err := Sources(specs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		src[i].File = filepath.Join(dir, src[i].File)
	}
	closeAll, err := OpenSources(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	var buf bytes.Buffer
	if _, err := Package(&buf, src); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func imageArgs(specs []string) []string {
	var a []string
	for _, s := range specs {
		a = append(a, "--image="+s)
	}
	return a
}

// Random images and metadata: our packaging equals llvm-offload-binary-22's
// byte for byte, and reading LLVM's output gives the metadata the options
// asked for.
func TestPackageMatchesLLVM(t *testing.T) {
	tool := needTool(t, "llvm-offload-binary-22")
	rng := rand.New(rand.NewSource(22))
	for i := 0; i < 60; i++ {
		dir := t.TempDir()
		c := newRandomCase(rng, dir)
		r := runTool(t, dir, tool, append([]string{"-o", "llvm.bin"}, imageArgs(c.specs)...)...)
		if r.err != nil {
			t.Fatalf("case %d: llvm-offload-binary %q: %v\n%s", i, c.specs, r.err, r.stderr)
		}
		want, _ := os.ReadFile(filepath.Join(dir, "llvm.bin"))
		got := packageOurs(t, dir, c.specs)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: %q\nours %d bytes, LLVM %d bytes\nours %q\nllvm %q", i, c.specs, len(got), len(want), got, want)
		}
		checkMetadata(t, want, c, dir)
	}
}

// checkMetadata reads LLVM's output and compares each image with what the
// options describe, using a plain map of the options (not ParseImageArgs).
func checkMetadata(t *testing.T, b []byte, c randomCase, dir string) {
	t.Helper()
	images, err := offloadbin.ReadAll(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("reading LLVM output: %v", err)
	}
	n := 0
	for _, spec := range c.specs {
		m := map[string]string{}
		var keys []string
		for _, piece := range strings.Split(spec, ",") {
			k, v, _ := strings.Cut(piece, "=")
			if old, ok := m[k]; ok {
				m[k] = old + "," + v
			} else {
				m[k] = v
				keys = append(keys, k)
			}
		}
		for _, f := range strings.Split(m["file"], ",") {
			if n >= len(images) {
				t.Fatalf("too few images in LLVM output")
			}
			im := images[n]
			n++
			got := map[string]string{}
			for _, kv := range im.Strings {
				got[kv.Key] = kv.Value
			}
			wantKV := map[string]string{}
			for _, k := range keys {
				if k != "file" && k != "kind" {
					wantKV[k] = m[k]
				}
			}
			if !reflect.DeepEqual(got, wantKV) {
				t.Fatalf("image %d strings %v, want %v", n-1, got, wantKV)
			}
			if k, ok := m["kind"]; ok && im.OffloadKind.String() != map[bool]string{true: k, false: "none"}[k == "openmp" || k == "cuda" || k == "hip" || k == "sycl"] {
				t.Fatalf("image %d kind %v for %q", n-1, im.OffloadKind, k)
			}
			data, _ := os.ReadFile(filepath.Join(dir, f))
			var img bytes.Buffer
			img.ReadFrom(im.Open())
			if !bytes.Equal(img.Bytes(), data) {
				t.Fatalf("image %d data differs from %s", n-1, f)
			}
		}
	}
	if n != len(images) {
		t.Fatalf("%d images, want %d", len(images), n)
	}
}

// llvm-objdump-22 --offloading lists what we package with the metadata the
// options asked for.
func TestObjdumpListsOurs(t *testing.T) {
	objdump := needTool(t, "llvm-objdump-22")
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 10; i++ {
		dir := t.TempDir()
		c := newRandomCase(rng, dir)
		if i%2 == 0 { // make sure the listed keys are present
			c.specs[0] += ",triple=nvptx64-nvidia-cuda,arch=sm_" + fmt.Sprint(70+i) + ",kind=cuda"
		}
		b := packageOurs(t, dir, c.specs)
		os.WriteFile(filepath.Join(dir, "ours.bin"), b, 0o644)
		r := runTool(t, dir, objdump, "--offloading", "ours.bin")
		if r.err != nil {
			t.Fatalf("objdump: %v %s", r.err, r.stderr)
		}
		var want strings.Builder
		src, _ := Sources(c.specs)
		for j, s := range src {
			get := func(k string) string {
				for _, kv := range s.Strings {
					if kv.Key == k {
						return kv.Value
					}
				}
				return ""
			}
			data, _ := os.ReadFile(filepath.Join(dir, s.File))
			fmt.Fprintf(&want, "\nOFFLOADING IMAGE [%d]:\n%-16s%s\n%-16s%s\n%-16s%s\n%-16s%s\n", j,
				"kind", DetectImageKind(s.File, data).ObjdumpName(), "arch", get("arch"), "triple", get("triple"),
				"producer", s.OffloadKind)
		}
		if r.stdout != want.String() {
			t.Fatalf("case %d objdump:\n%s\nwant:\n%s", i, r.stdout, want.String())
		}
	}
}

// readDir maps file names to contents.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func keysOf(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// extractBoth runs LLVM's and our extraction of input with the same options
// in two empty directories and compares the files written and the warnings.
func extractBoth(t *testing.T, tool, input string, specs []string, archive bool) int {
	t.Helper()
	input, _ = filepath.Abs(input)
	llvmDir, ourDir := t.TempDir(), t.TempDir()
	args := append([]string{input}, imageArgs(specs)...)
	if archive {
		args = append(args, "--archive")
	}
	r := runTool(t, llvmDir, tool, args...)

	t.Chdir(ourDir)
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	found, err := Scan(f, fi.Size(), input)
	var plan *Plan
	if err == nil {
		plan, err = PlanExtraction(input, found, specs, archive)
	}
	if err == nil {
		err = plan.Write()
	}
	if (err != nil) != (r.err != nil) {
		t.Fatalf("%q archive=%v: ours %v, LLVM %v %s", specs, archive, err, r.err, r.stderr)
	}
	if err != nil {
		return 0
	}
	// LLVM's archive writer warns about members that start with a bitcode
	// magic but do not parse; we do not parse bitcode (see archiveMember).
	var stderr []string
	for _, l := range strings.SplitAfter(r.stderr, "\n") {
		if !strings.Contains(l, "warning: '"+input+"': ") {
			stderr = append(stderr, l)
		}
	}
	r.stderr = strings.Join(stderr, "")
	for _, w := range plan.Warnings {
		if !strings.Contains(r.stderr, "warning: "+w+"\n") {
			t.Errorf("LLVM stderr %q lacks our warning %q", r.stderr, w)
		}
	}
	if strings.Count(r.stderr, "warning:") != len(plan.Warnings) {
		t.Errorf("LLVM warnings %q, ours %q", r.stderr, plan.Warnings)
	}
	want, got := readDir(t, llvmDir), readDir(t, ourDir)
	if !reflect.DeepEqual(keysOf(got), keysOf(want)) {
		t.Fatalf("%q archive=%v: files %q, LLVM %q", specs, archive, keysOf(got), keysOf(want))
	}
	for name := range want {
		if got[name] != want[name] {
			t.Fatalf("%q: %s differs (%d vs LLVM %d bytes)", specs, name, len(got[name]), len(want[name]))
		}
	}
	return len(want)
}

// randomFilters builds --image filters over the metadata of a package.
func randomFilters(rng *rand.Rand, src []Source, archive bool) []string {
	var specs []string
	for n := 1 + rng.Intn(3); n > 0; n-- {
		var pieces []string
		s := src[rng.Intn(len(src))]
		for _, kv := range s.Strings {
			if rng.Intn(3) == 0 && !strings.Contains(kv.Value, ",") {
				pieces = append(pieces, kv.Key+"="+kv.Value)
			}
		}
		switch rng.Intn(5) {
		case 0:
			pieces = append(pieces, "kind="+s.OffloadKind.String())
		case 1:
			pieces = append(pieces, "kind="+kindPool[rng.Intn(len(kindPool))])
		case 2:
			pieces = append(pieces, "nosuchkey=")
		}
		if archive && rng.Intn(6) != 0 || !archive && rng.Intn(3) == 0 {
			pieces = append(pieces, fmt.Sprintf("file=out%d.%s", rng.Intn(2), []string{"a", "o", "bin"}[rng.Intn(3)]))
		}
		specs = append(specs, strings.Join(pieces, ","))
	}
	return specs
}

// Extraction from raw packages: the same files, names and bytes as LLVM.
func TestExtractMatchesLLVM(t *testing.T) {
	tool := needTool(t, "llvm-offload-binary-22")
	rng := rand.New(rand.NewSource(99))
	files := 0
	for i := 0; i < 40; i++ {
		dir := t.TempDir()
		c := newRandomCase(rng, dir)
		// Give every image a triple so generated names are interesting, and
		// sometimes an arch; keep metadata small so filters can hit.
		for j := range c.specs {
			// Random triple/arch values may hold '/', where LLVM would write
			// outside the directory and we do not (see GeneratedName).
			var keep []string
			for _, p := range strings.Split(c.specs[j], ",") {
				if k, _, _ := strings.Cut(p, "="); k == "file" || k != "triple" && k != "arch" && len(keep) < 4 {
					keep = append(keep, p)
				}
			}
			c.specs[j] = strings.Join(keep, ",")
			c.specs[j] += ",triple=" + []string{"amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "spirv64-intel"}[rng.Intn(3)]
			if rng.Intn(2) == 0 {
				c.specs[j] += ",arch=gfx90" + fmt.Sprint(rng.Intn(3))
			}
		}
		pkg := filepath.Join(dir, "p.pkg.bin")
		os.WriteFile(pkg, packageOurs(t, dir, c.specs), 0o644)
		src, _ := Sources(c.specs)
		archive := i%4 == 3
		files += extractBoth(t, tool, pkg, randomFilters(rng, src, archive), archive)
	}
	t.Logf("%d files extracted and compared", files)
	if files < 40 {
		t.Errorf("only %d files extracted in all; the comparison is too weak", files)
	}
}

// Extraction from an ELF object (clang-22 -fembed-offload-object) and from an
// archive of such objects and raw packages, as LLVM does it, including
// --archive outputs whose members are ELF objects with symbols.
func TestExtractELFAndArchive(t *testing.T) {
	tool := needTool(t, "llvm-offload-binary-22")
	clang := needTool(t, "clang-22")
	llvmAr := needTool(t, "llvm-ar-22")
	dir := t.TempDir()
	// A device "image" that is itself an ELF object with global symbols.
	os.WriteFile(filepath.Join(dir, "dev.c"), []byte("int dev_fn(void){return 1;}\nint dev_var = 3;\n"), 0o644)
	if r := runTool(t, dir, clang, "-c", "--target=x86_64-unknown-linux-gnu", "dev.c", "-o", "dev.o"); r.err != nil {
		t.Fatalf("clang: %v %s", r.err, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "k.s"), []byte("ptx text"), 0o644)
	specs := []string{
		"file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp",
		"file=k.s,file=dev.o,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda",
	}
	os.WriteFile(filepath.Join(dir, "pkg.bin"), packageOurs(t, dir, specs), 0o644)
	os.WriteFile(filepath.Join(dir, "host.c"), []byte("int main(void){return 0;}\n"), 0o644)
	if r := runTool(t, dir, clang, "-c", "--target=x86_64-unknown-linux-gnu", "host.c", "-o", "host.o",
		"-Xclang", "-fembed-offload-object=pkg.bin"); r.err != nil {
		t.Fatalf("clang embed: %v %s", r.err, r.stderr)
	}
	if r := runTool(t, dir, llvmAr, "rcs", "lib.a", "host.o", "pkg.bin", "dev.c"); r.err != nil {
		t.Fatalf("llvm-ar: %v %s", r.err, r.stderr)
	}
	filters := [][]string{
		{"kind=openmp"},
		{"triple=nvptx64-nvidia-cuda"},
		{"kind=cuda,file=one.o"},
		{"arch=gfx906,file=lib.a", "kind=cuda,file=cuda.a"},
	}
	for _, in := range []string{"host.o", "lib.a"} {
		for j, f := range filters {
			if n := extractBoth(t, tool, filepath.Join(dir, in), f, j == 3); n == 0 {
				t.Errorf("%s %q: nothing extracted", in, f)
			}
		}
	}
}
