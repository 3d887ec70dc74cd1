package inspect_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// llvmEntry is what LLVM's tools give for one image of a fixture.
type llvmEntry struct {
	id     string // bundle entry ID, for bundles
	triple string // for OffloadBinaries
	arch   string
}

// llvmImages extracts with LLVM's tools: clang-offload-bundler-22 on the
// .hip_fatbin section of old-driver objects, llvm-offload-binary-22 on
// new-driver objects. It returns the bytes per entry.
func llvmImages(t *testing.T, obj string, entries []llvmEntry) [][]byte {
	dir := t.TempDir()
	var out [][]byte
	for i, e := range entries {
		dst := filepath.Join(dir, "img"+string(rune('0'+i)))
		if e.id != "" {
			sec := filepath.Join(dir, "fatbin")
			mustRun(t, dir, nil, llvmtest.Tool(t, "llvm-objcopy-22"), "--dump-section=.hip_fatbin="+sec, obj, filepath.Join(dir, "copy.o"))
			mustRun(t, dir, nil, llvmtest.Tool(t, "clang-offload-bundler-22"), "-unbundle", "-type=o", "-input="+sec,
				"-targets="+e.id, "-output="+dst)
		} else {
			mustRun(t, dir, nil, llvmtest.Tool(t, "llvm-offload-binary-22"), obj, "--image=file="+dst+",triple="+e.triple+",arch="+e.arch)
		}
		out = append(out, llvmtest.ReadFile(t, dst))
	}
	return out
}

var (
	oldEntries = []llvmEntry{{id: "hipv4-amdgcn-amd-amdhsa--gfx906"}, {id: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}}
	newEntries = []llvmEntry{{triple: "amdgcn-amd-amdhsa", arch: "gfx906"}, {triple: "amdgcn-amd-amdhsa", arch: "gfx90a:xnack+"}}
)

// offload extract writes each device image under a name made of the input
// file's stem, the kind, triple and target ID (':' made '_'), with the
// bytes LLVM's own tools extract.
func TestExtractMatchesLLVM(t *testing.T) {
	cases := []struct {
		fixture string
		entries []llvmEntry
		names   []string
	}{
		{"old.o", oldEntries, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx906.o", "old-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o"}},
		{"old-compressed.o", oldEntries, []string{"old-compressed-hipv4-amdgcn-amd-amdhsa-gfx906.o", "old-compressed-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o"}},
		{"new.o", newEntries, []string{"new-hip-amdgcn-amd-amdhsa-gfx906.bc", "new-hip-amdgcn-amd-amdhsa-gfx90a_xnack+.bc"}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			obj := fixture(t, c.fixture)
			want := llvmImages(t, obj, c.entries)
			dir := t.TempDir()
			r := mustRun(t, dir, nil, offloadBin, "extract", "-o", "out", obj)
			var paths []string
			for _, n := range c.names {
				paths = append(paths, filepath.Join("out", n))
			}
			if got := lines(r.Stdout); !reflect.DeepEqual(got, paths) {
				t.Fatalf("extract printed %q, want %q", got, paths)
			}
			if got := llvmtest.DirNames(t, filepath.Join(dir, "out")); !reflect.DeepEqual(got, c.names) {
				t.Fatalf("extract wrote %q", got)
			}
			for i, n := range c.names {
				if !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, "out", n)), want[i]) {
					t.Errorf("%s differs from what LLVM extracts", n)
				}
			}
		})
	}
}

// Filters select by target ID with the bundler's feature rules, by full
// bundle entry ID, by kind and by triple; a selection of nothing is an
// error that writes nothing.
func TestExtractFilters(t *testing.T) {
	old, newObj := fixture(t, "old.o"), fixture(t, "new.o")
	wantOld := llvmImages(t, old, oldEntries)
	cases := []struct {
		args  []string
		names []string
	}{
		{[]string{"--target=gfx90a:xnack+", old}, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o"}},
		{[]string{"--target=gfx90a:xnack+:sramecc-", old}, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o"}},
		{[]string{"--target=hipv4-amdgcn-amd-amdhsa--gfx906", old}, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx906.o"}},
		{[]string{"--target=hip-amdgcn-amd-amdhsa--gfx906", old}, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx906.o"}},
		{[]string{"--target=gfx906,gfx1100", old, newObj}, []string{"new-hip-amdgcn-amd-amdhsa-gfx906.bc", "old-hipv4-amdgcn-amd-amdhsa-gfx906.o"}},
		{[]string{"--kind=hipv4", old, newObj}, []string{"old-hipv4-amdgcn-amd-amdhsa-gfx906.o", "old-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o"}},
		{[]string{"--kind=host", old}, []string{"old-host-x86_64-unknown-linux-gnu.bin"}},
		{[]string{"--triple=amdgcn-amd-amdhsa", "--target=gfx906", newObj}, []string{"new-hip-amdgcn-amd-amdhsa-gfx906.bc"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		mustRun(t, dir, nil, append([]string{offloadBin, "extract"}, c.args...)...)
		if got := llvmtest.DirNames(t, dir); !reflect.DeepEqual(got, withTmp(c.names)) {
			t.Errorf("%q: wrote %q, want %q", c.args, got, c.names)
		}
		for i, e := range oldEntries {
			name := "old-hipv4-amdgcn-amd-amdhsa-" + strings.ReplaceAll(strings.TrimPrefix(e.id, "hipv4-amdgcn-amd-amdhsa--"), ":", "_") + ".o"
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && !bytes.Equal(b, wantOld[i]) {
				t.Errorf("%q: %s differs from what LLVM extracts", c.args, name)
			}
		}
	}
	// The file holds gfx90a:xnack+, which a request without xnack does
	// not accept (the bundler's rule); nothing selected is an error.
	for _, args := range [][]string{{"--target=gfx90a", old}, {"--target=gfx90a:xnack-", old}, {"--kind=openmp", old}} {
		dir := t.TempDir()
		r := run(t, dir, nil, append([]string{offloadBin, "extract"}, args...)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "no device image matches") || len(llvmtest.DirNames(t, dir)) != 1 {
			t.Errorf("%q: want exit 1, a message and no files:\n%v\n%q", args, r, llvmtest.DirNames(t, dir))
		}
	}
}

// withTmp adds the .tmp directory run() creates for TMPDIR.
func withTmp(names []string) []string {
	out := append([]string{".tmp"}, names...)
	sort.Strings(out)
	return out
}

// --archive writes one ar archive that llvm-ar-22 reads, with the images
// of every member of an input archive, names made unique.
func TestExtractArchive(t *testing.T) {
	ar := llvmtest.Tool(t, "llvm-ar-22")
	lib := fixture(t, "lib.a")
	old, oldc := llvmImages(t, fixture(t, "old.o"), oldEntries), llvmImages(t, fixture(t, "old-compressed.o"), oldEntries)
	neu := llvmImages(t, fixture(t, "new.o"), newEntries)
	dir := t.TempDir()
	mustRun(t, dir, nil, offloadBin, "extract", "--kind=hip", "--archive=dev.a", lib)
	names := lines(mustRun(t, dir, nil, ar, "t", "dev.a").Stdout)
	want := map[string][]byte{
		"lib-hipv4-amdgcn-amd-amdhsa-gfx906.o":          old[0],
		"lib-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o":   old[1],
		"lib-hip-amdgcn-amd-amdhsa-gfx906.bc":           neu[0],
		"lib-hip-amdgcn-amd-amdhsa-gfx90a_xnack+.bc":    neu[1],
		"lib-hipv4-amdgcn-amd-amdhsa-gfx906.1.o":        oldc[0],
		"lib-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.1.o": oldc[1],
	}
	if len(names) != len(want) {
		t.Fatalf("llvm-ar-22 t lists %q", names)
	}
	for _, n := range names {
		w, ok := want[n]
		if !ok {
			t.Errorf("unexpected member %s", n)
			continue
		}
		if got := mustRun(t, dir, nil, ar, "p", "dev.a", n).Stdout; got != string(w) {
			t.Errorf("member %s differs from what LLVM extracts", n)
		}
	}
	if got := llvmtest.DirNames(t, dir); !reflect.DeepEqual(got, []string{".tmp", "dev.a"}) {
		t.Errorf("--archive also wrote %q", got)
	}
}

// convert turns an old-driver bundle into the OffloadBinaries
// llvm-offload-binary-22 makes from the same code objects, byte for byte,
// and a new-driver object into the bundle clang-offload-bundler-22 makes.
func TestConvertMatchesLLVM(t *testing.T) {
	packager := llvmtest.Tool(t, "llvm-offload-binary-22")
	bundler := llvmtest.Tool(t, "clang-offload-bundler-22")
	dir := t.TempDir()
	for _, fx := range []string{"old.o", "old-compressed.o"} {
		imgs := llvmImages(t, fixture(t, fx), oldEntries)
		args := []string{packager, "-o", "llvm.bin"}
		for i, e := range oldEntries {
			f := llvmtest.WriteFile(t, dir, "co"+string(rune('0'+i))+".o", imgs[i])
			args = append(args, "--image=file="+f+",triple=amdgcn-amd-amdhsa,arch="+strings.TrimPrefix(e.id, "hipv4-amdgcn-amd-amdhsa--")+",kind=hip")
		}
		mustRun(t, dir, nil, args...)
		mustRun(t, dir, nil, offloadBin, "convert", "--to=offload-binary", "-o", "ours.bin", fixture(t, fx))
		if a, b := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.bin")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.bin")); !bytes.Equal(a, b) {
			t.Errorf("%s: our OffloadBinaries differ from llvm-offload-binary-22's", fx)
		}
	}

	imgs := llvmImages(t, fixture(t, "new.o"), newEntries)
	args := []string{bundler, "-type=o", "-bundle-align=4096", "-output=llvm.bundle",
		"-targets=hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}
	for i := range newEntries {
		args = append(args, "-input="+llvmtest.WriteFile(t, dir, "dev"+string(rune('0'+i))+".bc", imgs[i]))
	}
	mustRun(t, dir, nil, args...)
	mustRun(t, dir, nil, offloadBin, "convert", "--to=bundle", "-o", "ours.bundle", fixture(t, "new.o"))
	if a, b := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.bundle")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.bundle")); !bytes.Equal(a, b) {
		t.Error("our bundle differs from clang-offload-bundler-22's")
	}
}

// OpenMP images become a bundle with the host entry LLVM's bundler wants,
// and an LLVM bundle survives a round trip through OffloadBinaries.
func TestConvertHostAndRoundTrip(t *testing.T) {
	packager := llvmtest.Tool(t, "llvm-offload-binary-22")
	bundler := llvmtest.Tool(t, "clang-offload-bundler-22")
	dir := t.TempDir()
	a := llvmtest.WriteFile(t, dir, "a.o", []byte("openmp image for gfx906"))
	b := llvmtest.WriteFile(t, dir, "b.o", []byte("openmp image for gfx90a:xnack-, a little longer"))
	mustRun(t, dir, nil, packager, "-o", "omp.bin", "--image=file="+a+",triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp",
		"--image=file="+b+",triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack-,kind=openmp")
	mustRun(t, dir, nil, bundler, "-type=o", "-bundle-align=64", "-output=llvm.bundle", "-input=/dev/null", "-input="+a, "-input="+b,
		"-targets=host-x86_64-unknown-linux-gnu,openmp-amdgcn-amd-amdhsa--gfx906,openmp-amdgcn-amd-amdhsa--gfx90a:xnack-")
	mustRun(t, dir, nil, offloadBin, "convert", "--to=bundle", "--host-triple=x86_64-unknown-linux-gnu", "--bundle-align=64",
		"-o", "ours.bundle", "omp.bin")
	if x, y := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.bundle")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.bundle")); !bytes.Equal(x, y) {
		t.Error("our OpenMP bundle with a host entry differs from clang-offload-bundler-22's")
	}

	orig := fixture(t, "bundle.bin")
	mustRun(t, dir, nil, offloadBin, "convert", "--to=offload-binary", "-o", "rt.bin", orig)
	mustRun(t, dir, nil, offloadBin, "convert", "--to=bundle", "-o", "rt.bundle", "rt.bin")
	if !bytes.Equal(llvmtest.ReadFile(t, orig), llvmtest.ReadFile(t, filepath.Join(dir, "rt.bundle"))) {
		t.Error("bundle -> OffloadBinary -> bundle changed clang-offload-bundler-22's bundle")
	}
	if r := run(t, dir, nil, packager, "rt.bin", "--image=file=x,triple=amdgcn-amd-amdhsa,arch=gfx1100"); r.Code != 0 || !exists(filepath.Join(dir, "x")) {
		t.Errorf("llvm-offload-binary-22 cannot extract from the converted file:\n%v", r)
	}
}

// Bad requests fail with a message and leave no output behind.
func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	old := fixture(t, "old.o")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--to=tarball", "-o", "x", old}, "--to must be offload-binary or bundle"},
		{[]string{"--to=bundle", old}, "no output file"},
		{[]string{"--to=bundle", "--bundle-align=0", "-o", "x", old}, "--bundle-align wants a positive number"},
		{[]string{"--to=bundle", "--target=sm_90", "-o", "x", old}, "no device image matches"},
		{[]string{"--to=bundle", "-o", "x", fixture(t, "packages.bin")}, "cannot go into a clang-offload-bundler bundle"},
	}
	for _, c := range cases {
		r := run(t, dir, nil, append([]string{offloadBin, "convert"}, c.args...)...)
		if r.Code == 0 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%q: want failure with %q:\n%v", c.args, c.want, r)
		}
		if exists(filepath.Join(dir, "x")) {
			t.Fatalf("%q: left an output file", c.args)
		}
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// --list shows the names extract gives, repeats numbered, and what it
// writes has those names; two CCOBs in one section both yield images.
func TestExtractListNames(t *testing.T) {
	obj := fixture(t, "multi-ccob.o")
	dir := t.TempDir()
	var listed, sizes []string
	for _, l := range lines(mustRun(t, dir, nil, offloadBin, "extract", "--list", obj).Stdout) {
		f := strings.Split(l, "\t")
		listed, sizes = append(listed, f[0]), append(sizes, f[1])
	}
	want := []string{"multi-ccob-hipv4-amdgcn-amd-amdhsa-gfx906.o", "multi-ccob-hipv4-amdgcn-amd-amdhsa-gfx90a_xnack+.o",
		"multi-ccob-hipv4-amdgcn-amd-amdhsa-gfx1100.o", "multi-ccob-hipv4-amdgcn-amd-amdhsa-gfx906.1.o"}
	if !reflect.DeepEqual(listed, want) {
		t.Fatalf("--list names %q, want %q", listed, want)
	}
	mustRun(t, dir, nil, offloadBin, "extract", "-o", "out", obj)
	written := llvmtest.DirNames(t, filepath.Join(dir, "out"))
	sort.Strings(want)
	if !reflect.DeepEqual(written, want) {
		t.Fatalf("extract wrote %q, --list said %q", written, want)
	}
	for i, n := range listed {
		if fi, err := os.Stat(filepath.Join(dir, "out", n)); err != nil || fmt.Sprint(fi.Size()) != sizes[i] {
			t.Errorf("%s: --list says %s bytes, file: %v %v", n, sizes[i], fi, err)
		}
	}
}
