package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// runOffload runs "offload args..." in dir and returns status and output.
func runOffload(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var o, e bytes.Buffer
	rc := dispatch(append([]string{"offload"}, args...), &o, &e)
	return rc, o.String(), e.String()
}

var formatImages = []string{
	"--image=file=a.o,file=b.bc,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp",
	"--image=file=c,file=d.spv,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda",
}

func readPackage(t *testing.T, path string) []offloadbin.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	images, err := offloadbin.ReadAll(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return images
}

// --format-version=2 and 3 put every image into one binary, with LLVM
// main's kinds (d.spv is SPIR-V there) and the string order of
// llvm-offload-binary's DenseMap (arch before triple).
func TestPackagerFormatVersions(t *testing.T) {
	dir := t.TempDir()
	packagerFixture(t, dir)
	type want struct {
		kind offloadbin.ImageKind
		ok   offloadbin.OffloadKind
		arch string
		data string
	}
	wants := []want{
		{offloadbin.ImageObject, offloadbin.OffloadOpenMP, "gfx906", "AAAA"},
		{offloadbin.ImageBitcode, offloadbin.OffloadOpenMP, "gfx906", "BC\xc0\xde-bitcode"},
		{offloadbin.ImageNone, offloadbin.OffloadCuda, "sm_90", "no extension"},
		{offloadbin.ImageSPIRV, offloadbin.OffloadCuda, "sm_90", "spirv"},
	}
	for _, tc := range []struct {
		args       []string
		version    uint32
		compressed bool
	}{
		{[]string{"--format-version=2"}, 2, false},
		{[]string{"--format-version", "3"}, 3, false},
		{[]string{"--format-version=3", "--compress=zlib"}, 3, true},
		{[]string{"--format-version=3", "--compress=zstd"}, 3, true},
	} {
		args := append(append([]string{"packager", "-o", "p.bin"}, tc.args...), formatImages...)
		if rc, _, e := runOffload(t, dir, args...); rc != 0 {
			t.Fatalf("%v: %s", tc.args, e)
		}
		images := readPackage(t, filepath.Join(dir, "p.bin"))
		if len(images) != len(wants) {
			t.Fatalf("%v: %d images", tc.args, len(images))
		}
		for i, im := range images {
			w := wants[i]
			keys := []string{im.Strings[0].Key, im.Strings[1].Key}
			data, _ := offloadbinData(im)
			if im.Version != tc.version || im.BinaryOffset != 0 || im.Index != i || im.Compressed != tc.compressed ||
				im.ImageKind != w.kind || im.OffloadKind != w.ok || im.Arch() != w.arch || data != w.data ||
				!reflect.DeepEqual(keys, []string{"arch", "triple"}) {
				t.Errorf("%v: image %d = %+v %q", tc.args, i, im, data)
			}
		}
	}
}

func offloadbinData(im offloadbin.Image) (string, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(im.Open())
	return b.String(), err
}

// The default, and --format-version=1, stay LLVM 22's format: the same bytes
// as the drop-in (which TestPackagerCLIMatchesLLVM compares with LLVM 22).
func TestPackagerFormatDefaultIsV1(t *testing.T) {
	dir := t.TempDir()
	packagerFixture(t, dir)
	var outs []string
	for i, extra := range [][]string{nil, {"--format-version=1"}} {
		out := filepath.Join(dir, []string{"default.bin", "v1.bin"}[i])
		args := append(append([]string{"packager", "-o", out}, extra...), formatImages...)
		if rc, _, e := runOffload(t, dir, args...); rc != 0 {
			t.Fatal(e)
		}
		b, _ := os.ReadFile(out)
		outs = append(outs, string(b))
	}
	t.Chdir(dir)
	var o, e bytes.Buffer
	if rc := dispatch(append([]string{"llvm-offload-binary", "-o", "dropin.bin"}, formatImages...), &o, &e); rc != 0 {
		t.Fatal(e.String())
	}
	dropin, _ := os.ReadFile(filepath.Join(dir, "dropin.bin"))
	if outs[0] != string(dropin) || outs[1] != string(dropin) {
		t.Fatal("default or --format-version=1 output differs from llvm-offload-binary's")
	}
	images := readPackage(t, filepath.Join(dir, "dropin.bin"))
	if len(images) != 4 || images[3].Version != 1 || images[3].ImageKind != offloadbin.ImageNone || images[1].BinaryOffset == 0 {
		t.Fatalf("v1 package: %+v", images)
	}
}

// offload inspect reads version 2 and 3 binaries and reports their version.
func TestInspectShowsFormatVersions(t *testing.T) {
	dir := t.TempDir()
	packagerFixture(t, dir)
	for _, tc := range []struct {
		args    []string
		version int
	}{
		{[]string{"--format-version=2"}, 2},
		{[]string{"--format-version=3"}, 3},
		{[]string{"--format-version=3", "--compress=zstd"}, 3},
	} {
		args := append(append([]string{"packager", "-o", "p.bin"}, tc.args...), formatImages...)
		if rc, _, e := runOffload(t, dir, args...); rc != 0 {
			t.Fatal(e)
		}
		rc, out, e := runOffload(t, dir, "inspect", "--json", "p.bin")
		if rc != 0 {
			t.Fatalf("%v: inspect rc %d: %s%s", tc.args, rc, out, e)
		}
		var doc struct {
			Files []struct {
				Format   string
				Children []struct {
					Name  string
					Entry struct{ Version int }
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		f := doc.Files[0]
		if f.Format != "offload-binary" || len(f.Children) != 4 {
			t.Fatalf("%v: %s", tc.args, out)
		}
		for i, c := range f.Children {
			if c.Entry.Version != tc.version || c.Name != "image "+string(rune('0'+i)) {
				t.Errorf("%v: child %d %+v", tc.args, i, c)
			}
		}
		rc, text, _ := runOffload(t, dir, "inspect", "p.bin")
		if rc != 0 || !strings.Contains(text, "offload-binary (4 images)") || !strings.Contains(text, "arch sm_90") {
			t.Errorf("%v: text inspect:\n%s", tc.args, text)
		}
	}
}

// Extraction reads version 2 and 3 packages like version 1 ones.
func TestPackagerExtractsFormatVersions(t *testing.T) {
	for _, args := range [][]string{{"--format-version=2"}, {"--format-version=3", "--compress=zlib"}} {
		dir := t.TempDir()
		packagerFixture(t, dir)
		if rc, _, e := runOffload(t, dir, append(append([]string{"packager", "-o", "p.bin"}, args...), formatImages...)...); rc != 0 {
			t.Fatal(e)
		}
		if rc, _, e := runOffload(t, dir, "packager", "p.bin", "--image=kind=cuda,arch=sm_90,file=out.spv", "--image=kind=openmp,file=first.o"); rc != 0 {
			t.Fatalf("%v: %s", args, e)
		}
		for name, want := range map[string]string{"out.spv": "spirv", "first.o": "BC\xc0\xde-bitcode"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
				t.Errorf("%v: %s = %q %v", args, name, b, err)
			}
		}
	}
}

func TestPackagerFormatErrors(t *testing.T) {
	dir := t.TempDir()
	packagerFixture(t, dir)
	for _, tc := range []struct {
		prog string
		args []string
		want string
	}{
		{"offload", []string{"packager", "-o", "x", "--format-version=4", "--image=file=a.o"}, "--format-version must be 1, 2 or 3"},
		{"offload", []string{"packager", "-o", "x", "--format-version=3", "--compress=lz4", "--image=file=a.o"}, "--compress must be zlib or zstd"},
		{"offload", []string{"packager", "-o", "x", "--compress=zstd", "--image=file=a.o"}, "--compress needs --format-version=3"},
		{"offload", []string{"packager", "-o", "x", "--format-version=2", "--compress=zlib", "--image=file=a.o"}, "--compress needs --format-version=3"},
		// The drop-in keeps LLVM 22's command line.
		{"llvm-offload-binary", []string{"-o", "x", "--format-version=2", "--image=file=a.o"}, "Unknown command line argument '--format-version=2'"},
	} {
		t.Chdir(dir)
		var o, e bytes.Buffer
		rc := dispatch(append([]string{tc.prog}, tc.args...), &o, &e)
		if rc == 0 || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%v: rc %d, stderr %q", tc.args, rc, e.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
			t.Errorf("%v: output written", tc.args)
		}
	}
	// Help lists our options only for offload packager.
	_, out, _ := runOffload(t, dir, "packager", "--help")
	if !strings.Contains(out, "--format-version=<1|2|3>") || !strings.Contains(out, "--compress=<zlib|zstd>") {
		t.Errorf("help:\n%s", out)
	}
	var o, e bytes.Buffer
	dispatch([]string{"llvm-offload-binary", "--help"}, &o, &e)
	if strings.Contains(o.String(), "format-version") {
		t.Errorf("drop-in help mentions our option")
	}
}
