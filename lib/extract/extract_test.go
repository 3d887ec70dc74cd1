package extract

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

const hipSource = `#define __device__ __attribute__((device))
extern "C" __device__ float twice(float x) { return 2 * x; }
__device__ float g;
`

var archs = []string{"gfx906", "gfx90a:xnack+", "gfx1100"}

// hipObject compiles k.hip for three GPUs: the old driver embeds a bundle in
// .hip_fatbin, the new driver (-fgpu-rdc) OffloadBinaries in .llvm.offloading.
func hipObject(t *testing.T, dir string, newDriver bool) string {
	os.WriteFile(filepath.Join(dir, "k.hip"), []byte(hipSource), 0o644)
	args := []string{"-cuid=fixed", "-x", "hip", "-nogpuinc", "-nogpulib", "-c", "k.hip", "-o", "k.o"}
	if newDriver {
		args = append(args, "--offload-new-driver", "-fgpu-rdc")
	}
	for _, a := range archs {
		args = append(args, "--offload-arch="+a)
	}
	llvmtest.Run(t, dir, "clang++-22", args...)
	return filepath.Join(dir, "k.o")
}

func walkFile(t *testing.T, w *Walker, path string) []*Image {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w.OnClose(func() { f.Close() })
	fi, _ := f.Stat()
	var ims []*Image
	if err := w.Walk(f, fi.Size(), path, func(im *Image) error { ims = append(ims, im); return nil }); err != nil {
		t.Fatal(err)
	}
	return ims
}

func read(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConvertBundleToOffloadBinary: LLVM's packager must find in our
// OffloadBinary the same code objects LLVM's bundler finds in clang's bundle.
func TestConvertBundleToOffloadBinary(t *testing.T) {
	dir := t.TempDir()
	obj := hipObject(t, dir, false)
	w := NewWalker(Options{})
	defer w.Close()
	ims := walkFile(t, w, obj)
	out, _ := os.Create(filepath.Join(dir, "k.offbin"))
	if err := ToOffloadBinary(out, ims); err != nil {
		t.Fatal(err)
	}
	out.Close()
	llvmtest.Run(t, dir, "llvm-objcopy-22", "--dump-section=.hip_fatbin=fatbin", obj)
	for _, a := range archs {
		id := "hipv4-amdgcn-amd-amdhsa--" + a
		llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=o", "-unbundle", "-input=fatbin", "-targets="+id, "-output=want")
		llvmtest.Run(t, dir, "llvm-offload-binary-22", "k.offbin", "--image=file=got,triple=amdgcn-amd-amdhsa,arch="+a+",kind=hip")
		if !bytes.Equal(read(t, filepath.Join(dir, "want")), read(t, filepath.Join(dir, "got"))) {
			t.Errorf("%s: image differs from the bundle entry", a)
		}
	}
}

// TestConvertOffloadBinaryToBundle: LLVM's bundler must find in our bundle
// the same images LLVM's packager extracts from the new driver's object.
func TestConvertOffloadBinaryToBundle(t *testing.T) {
	dir := t.TempDir()
	obj := hipObject(t, dir, true)
	w := NewWalker(Options{})
	defer w.Close()
	ims := walkFile(t, w, obj)
	if len(ims) != len(archs) {
		t.Fatalf("found %d images, want %d", len(ims), len(archs))
	}
	out, _ := os.Create(filepath.Join(dir, "k.hipfb"))
	if err := ToBundle(out, ims, "", 4096); err != nil {
		t.Fatal(err)
	}
	out.Close()
	list := strings.Fields(llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=o", "-list", "-input=k.hipfb"))
	sort.Strings(list)
	want := []string{"hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}
	if strings.Join(list, ",") != strings.Join(want, ",") {
		t.Fatalf("LLVM lists %v, want %v", list, want)
	}
	for _, a := range archs {
		llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=o", "-unbundle", "-input=k.hipfb", "-targets=hipv4-amdgcn-amd-amdhsa--"+a, "-output=got")
		llvmtest.Run(t, dir, "llvm-offload-binary-22", "k.o", "--image=file=want,triple=amdgcn-amd-amdhsa,arch="+a)
		if !bytes.Equal(read(t, filepath.Join(dir, "want")), read(t, filepath.Join(dir, "got"))) {
			t.Errorf("%s: bundle entry differs from the packaged image", a)
		}
	}
}

func TestFilterTargets(t *testing.T) {
	im := &Image{OffloadKind: "hipv4", Triple: "amdgcn-amd-amdhsa", TargetID: "gfx90a:xnack+", BundleID: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}
	cases := []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Targets: []string{"gfx90a"}}, false}, // the image fixes xnack
		{Filter{Targets: []string{"gfx90a:xnack+"}}, true},
		{Filter{Targets: []string{"gfx90a:xnack-"}}, false},
		{Filter{Targets: []string{"gfx90a:sramecc+:xnack+"}}, true},
		{Filter{Targets: []string{"gfx906"}}, false},
		{Filter{Targets: []string{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+"}}, true}, // hip ↔ hipv4
		{Filter{Kinds: []string{"hip"}}, true},
		{Filter{Kinds: []string{"openmp"}}, false},
		{Filter{Triples: []string{"amdgcn-amd-amdhsa"}}, true},
	}
	for _, c := range cases {
		if got := c.f.Match(im); got != c.want {
			t.Errorf("%+v: got %v, want %v", c.f, got, c.want)
		}
	}
	if (Filter{}).Match(&Image{OffloadKind: "host"}) {
		t.Error("host entries selected without IncludeHost")
	}
}

// TestHostileNamesStayInDir: entry IDs are attacker-controlled; extracted
// file names must stay inside the output directory.
func TestHostileNamesStayInDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	ims := []*Image{
		{OffloadKind: "hip", Triple: "../../..", TargetID: "/etc/passwd", Size: 1, data: strings.NewReader("x")},
		{OffloadKind: "..", Triple: "", TargetID: "..", Size: 1, data: strings.NewReader("y")},
	}
	paths, err := ToDir(out, "..", ims)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if filepath.Dir(p) != out {
			t.Errorf("%s escapes %s", p, out)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files written outside the output directory: %v", entries)
	}
}

func TestToArchiveReadableByLLVM(t *testing.T) {
	dir := t.TempDir()
	obj := hipObject(t, dir, false)
	w := NewWalker(Options{})
	defer w.Close()
	var ims []*Image
	for _, im := range walkFile(t, w, obj) {
		if (Filter{}).Match(im) {
			ims = append(ims, im)
		}
	}
	if err := ToArchive(filepath.Join(dir, "dev.a"), "k", ims, nil); err != nil {
		t.Fatal(err)
	}
	members := strings.Fields(llvmtest.Run(t, dir, "llvm-ar-22", "t", "dev.a"))
	if len(members) != len(archs) {
		t.Fatalf("llvm-ar lists %v", members)
	}
	for i, m := range members {
		got := llvmtest.Run(t, dir, "llvm-ar-22", "p", "dev.a", m)
		want := new(bytes.Buffer)
		want.ReadFrom(ims[i].Open())
		if got != want.String() {
			t.Errorf("member %s differs from image %d", m, i)
		}
	}
}

func FuzzWalk(f *testing.F) {
	f.Add([]byte("__CLANG_OFFLOAD_BUNDLE__\x01\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("CCOB\x02\x00\x01\x00"))
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("\x10\xff\x10\xad\x01\x00\x00\x00"))
	// The hostile inputs of the robustness tests, small.
	f.Add(hostile.TextChain(3))
	f.Add(hostile.CCOB(hostile.CCOB([]byte("x"), 0), 0))
	f.Add(hostile.OffloadBinaryBomb(4096, "gfx906"))
	f.Add(coffWith([]string{".llvm.offloading"}, [][]byte{coffPackage(f)}))
	// The robustness review's, small: long COFF names, LZ4 fat binary entries in a
	// CCOB, a record declaring far more than its bundle header.
	f.Add(hostile.CCOBZlib(hostile.COFFLongNames(20, 4096, 0)))
	f.Add(hostile.CCOBZlib(hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 1, Arch: 80, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx\x00")), Inflated: 4},
		{Kind: 1, Arch: 80, Header: 1024, LongStrings: true, Payload: []byte("x\x00")},
	})))
	// Records nested, each padded after the next (one look each).
	f.Add(hostile.PaddedChain(3, 1024, hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{0})))
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"}
	f.Add(hostile.CCOB(hostile.BundleHeader(ids, []int64{0, 1 << 19}), 1<<19))
	walk := func(t *testing.T, data []byte) ([]string, error) {
		w := NewWalker(Options{MaxUncompressedSize: 1 << 20, TempDir: t.TempDir()})
		defer w.Close()
		var got []string
		err := w.Walk(bytes.NewReader(data), int64(len(data)), "fuzz", func(im *Image) error {
			n, err := new(bytes.Buffer).ReadFrom(im.Open())
			if err == nil && n != im.Size {
				t.Fatalf("image %v: read %d of %d bytes", im.Where, n, im.Size)
			}
			if len(im.Where) < 2 || im.Where[0] != "fuzz" {
				t.Fatalf("image without a path: %v", im.Where)
			}
			got = append(got, fmt.Sprintf("%v %s %d", im.Where, im.TargetID, im.Size))
			return err
		})
		return got, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		first, err1 := walk(t, data)
		again, err2 := walk(t, data)
		if (err1 == nil) != (err2 == nil) || !slices.Equal(first, again) {
			t.Fatalf("two walks differ: %v (%v) then %v (%v)", first, err1, again, err2)
		}
		// A listing (SizesOnly: compressed records decoded only as far as
		// it reads) finds what the walk finds, but for what it does not
		// decode: the hash of a record it lists from its header.
		listed, err3 := walkSizes(t, data)
		if errors.Is(err1, ccob.ErrHashMismatch) {
			return
		}
		if (err1 == nil) != (err3 == nil) || err1 == nil && !slices.Equal(first, listed) {
			t.Fatalf("the walk and the listing differ: %v (%v) and %v (%v)", first, err1, listed, err3)
		}
	})
}

// walkSizes is FuzzWalk's walk for sizes only, reading no image.
func walkSizes(t *testing.T, data []byte) ([]string, error) {
	w := NewWalker(Options{MaxUncompressedSize: 1 << 20, TempDir: t.TempDir(), SizesOnly: true})
	defer w.Close()
	var got []string
	err := w.Walk(bytes.NewReader(data), int64(len(data)), "fuzz", func(im *Image) error {
		got = append(got, fmt.Sprintf("%v %s %d", im.Where, im.TargetID, im.Size))
		return nil
	})
	return got, err
}
