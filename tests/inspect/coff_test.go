package inspect_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// coffImage is one image of the package embedded in the COFF fixtures.
type coffImage struct{ file, triple, arch, kind string }

var coffImages = []coffImage{
	{"coff-img0.o", "amdgcn-amd-amdhsa", "gfx90a:xnack+", "openmp"},
	{"coff-img1.co", "nvptx64-nvidia-cuda", "sm_90", "cuda"},
}

// coffPackage is an llvm-offload-binary-22 package of random images, one
// named .o (image kind elf) and one not (<none>).
func coffPackage(t *testing.T) string {
	llvm := llvmtest.Tool(t, "llvm-offload-binary-22")
	args := []string{llvm, "-o", "coff-pkg.bin"}
	for i, in := range randomInputs(t, 3)[:len(coffImages)] {
		im := coffImages[i]
		llvmtest.WriteFile(t, fixtureRoot, im.file, llvmtest.ReadFile(t, in))
		args = append(args, fmt.Sprintf("--image=file=%s,triple=%s,arch=%s,kind=%s", im.file, im.triple, im.arch, im.kind))
	}
	mustRun(t, fixtureRoot, nil, args...)
	return filepath.Join(fixtureRoot, "coff-pkg.bin")
}

// coffObject compiles a C file for a Windows target with clang-22, which
// embeds the package in a .llvm.offloading section named through the
// string table.
func coffObject(t *testing.T, name, target string) string {
	clang := llvmtest.Tool(t, "clang-22")
	pkg := fixture(t, "coff-pkg.bin")
	llvmtest.WriteFile(t, fixtureRoot, "host.c", []byte("int counter = 7;\nint bump(int x) { return counter += x; }\n"))
	mustRun(t, fixtureRoot, nil, clang, "--target="+target, "-c", "host.c", "-o", name, "-Xclang", "-fembed-offload-object="+pkg)
	return filepath.Join(fixtureRoot, name)
}

// offloadingEntry finds the section table entry of .llvm.offloading in a
// COFF object from clang, by the layout of the PE/COFF specification,
// and returns it with the number of sections.
func offloadingEntry(t *testing.T, obj []byte) (entry, sections int) {
	le := binary.LittleEndian
	sections = int(le.Uint16(obj[2:]))
	strtab := obj[le.Uint32(obj[8:])+18*le.Uint32(obj[12:]):]
	for i := range sections {
		field, _, _ := strings.Cut(string(obj[20+40*i:28+40*i]), "\x00")
		if at, err := strconv.Atoi(strings.TrimPrefix(field, "/")); err == nil && strings.HasPrefix(string(strtab[at:]), ".llvm.offloading\x00") {
			return 20 + 40*i, sections
		}
	}
	t.Fatal("no .llvm.offloading section named through the string table")
	return 0, 0
}

// COFF objects from clang-22 for Windows targets: inspect shows the
// package in .llvm.offloading, its images as llvm-objdump-22 --offloading
// lists them from the object, at offsets that hold the package's own
// images byte for byte; extract writes those images, the bytes
// llvm-offload-binary-22 extracts from the object.
func TestCOFFObjects(t *testing.T) {
	objdump, llvm := llvmtest.Tool(t, "llvm-objdump-22"), llvmtest.Tool(t, "llvm-offload-binary-22")
	pkg := llvmtest.ReadFile(t, fixture(t, "coff-pkg.bin"))
	for _, c := range []struct{ fixture, detail string }{{"win-x64.obj", "COFF object, x86-64"}, {"win-arm64.obj", "COFF object, ARM64"}} {
		t.Run(c.fixture, func(t *testing.T) {
			path := fixture(t, c.fixture)
			data := llvmtest.ReadFile(t, path)
			dir := t.TempDir()
			files, r := inspectJSON(t, dir, path)
			if r.Code != 0 || len(files) != 1 {
				t.Fatalf("inspect --json failed:\n%v", r)
			}
			f := files[0]
			if f.Format != "coff" || f.Detail != c.detail || f.Name != path || len(f.Children) != 1 {
				t.Fatalf("inspect --json: %s (%s), %d sections shown:\n%s", f.Format, f.Detail, len(f.Children), r.Stdout)
			}
			sec := f.Children[0]
			if sec.Name != ".llvm.offloading" || sec.Format != "offload-binary" || sec.Space != "file" || sec.Detail != "section .llvm.offloading: 2 images" ||
				sec.Offset+sec.Size > int64(len(data)) || !bytes.Equal(data[sec.Offset:sec.Offset+sec.Size], pkg) {
				t.Fatalf("section %+v does not hold the package", sec)
			}
			want := parseObjdump(mustRun(t, dir, nil, objdump, "--offloading", path).Stdout)
			if len(want) != len(coffImages) || len(sec.Children) != len(want) {
				t.Fatalf("inspect lists %d images, llvm-objdump-22 %d", len(sec.Children), len(want))
			}
			text := mustRun(t, dir, nil, offloadBin, "inspect", path).Stdout
			tc := &checker{t: t, text: text}
			tc.wantText("", path+": coff ("+c.detail+")")
			tc.wantText("", fmt.Sprintf(".llvm.offloading: offload-binary (section .llvm.offloading: 2 images)  size %d at %d", sec.Size, sec.Offset))
			for i, im := range sec.Children {
				e, w := im.Entry, want[i]
				if e.ImageKind != w.kind || e.TargetID != w.arch || e.Triple != w.triple || e.OffloadKind != w.producer || im.Space != "file" {
					t.Errorf("image %d: inspect says kind %q arch %q triple %q producer %q in %s; llvm-objdump-22 %+v",
						i, e.ImageKind, e.TargetID, e.Triple, e.OffloadKind, im.Space, w)
				}
				tc.wantImageText(w)
				own := llvmtest.ReadFile(t, filepath.Join(fixtureRoot, coffImages[i].file))
				if im.Offset+im.Size > int64(len(data)) || !bytes.Equal(data[im.Offset:im.Offset+im.Size], own) {
					t.Errorf("image %d: the %d bytes at offset %d are not the package's image", i, im.Size, im.Offset)
				}
			}

			// extract: the images, named and placed as --list says.
			stem := strings.TrimSuffix(c.fixture, ".obj")
			var listed []string
			for _, l := range lines(mustRun(t, dir, nil, offloadBin, "extract", "--list", path).Stdout) {
				listed = append(listed, l[strings.LastIndex(l, "\t")+1:])
			}
			if w := []string{path + ": .llvm.offloading: image 0", path + ": .llvm.offloading: image 1"}; strings.Join(listed, "\n") != strings.Join(w, "\n") {
				t.Errorf("extract --list places the images at %q, want %q", listed, w)
			}
			mustRun(t, dir, nil, offloadBin, "extract", "-o", "out", path)
			names := []string{stem + "-openmp-amdgcn-amd-amdhsa-gfx90a_xnack+.o", stem + "-cuda-nvptx64-nvidia-cuda-sm_90.bin"}
			got := llvmtest.DirNames(t, filepath.Join(dir, "out"))
			sorted := append([]string(nil), names...)
			sort.Strings(sorted)
			if strings.Join(got, " ") != strings.Join(sorted, " ") {
				t.Fatalf("extract wrote %q, want %q", got, sorted)
			}
			for i, n := range names {
				im := coffImages[i]
				dst := filepath.Join(dir, "llvm"+strconv.Itoa(i))
				mustRun(t, dir, nil, llvm, path, "--image=file="+dst+",triple="+im.triple+",arch="+im.arch)
				b := llvmtest.ReadFile(t, filepath.Join(dir, "out", n))
				if !bytes.Equal(b, llvmtest.ReadFile(t, filepath.Join(fixtureRoot, im.file))) || !bytes.Equal(b, llvmtest.ReadFile(t, dst)) {
					t.Errorf("%s is not the package's image %d, as llvm-offload-binary-22 extracts it", n, i)
				}
			}
		})
	}
}

// A damaged COFF object (section table cut short, section contents past
// the end) is an error that names the file and says where, for inspect
// (text and JSON, exit 1) and extract (exit 1, nothing written), never a
// panic; llvm-offload-binary-22 refuses the same files.
func TestCOFFObjectDamaged(t *testing.T) {
	good := llvmtest.ReadFile(t, fixture(t, "win-x64.obj"))
	entry, sections := offloadingEntry(t, good)
	past := bytes.Clone(good)
	binary.LittleEndian.PutUint32(past[entry+16:], uint32(len(good)))
	for _, c := range []struct {
		name   string
		data   []byte
		offset int64
		reason string
	}{
		{"section table cut", good[:20+40*sections-1], 20, "COFF object: section table past end of file"},
		{"section past the end", past, int64(entry), "COFF object: section .llvm.offloading past end of file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := llvmtest.WriteFile(t, dir, "bad.obj", c.data)
			checkCorrupt(t, dir, path, c.offset, c.reason)
			text := run(t, dir, nil, offloadBin, "inspect", path)
			if !strings.HasPrefix(text.Stdout, path+": coff") || strings.Contains(text.Stderr, "panic") {
				t.Errorf("inspect does not name the file:\n%v", text)
			}
			x := run(t, dir, nil, offloadBin, "extract", "-o", "out", path)
			if x.Code != 1 || !strings.Contains(x.Stderr, "error: "+path+": "+c.reason) || strings.Contains(x.Stderr, "panic") {
				t.Errorf("extract: want exit 1 and an error naming %s:\n%v", path, x)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 0 {
				t.Errorf("extract wrote %v from a damaged object", ents)
			}
			if r := run(t, dir, nil, llvmtest.Tool(t, "llvm-offload-binary-22"), path, "--image=file=none"); r.Code != 1 {
				t.Errorf("llvm-offload-binary-22 takes the damaged object:\n%v", r)
			}
		})
	}
}
