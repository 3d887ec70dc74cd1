package packager_test

// What LLVM's own regression tests of llvm-offload-binary and
// clang-offload-packager check (llvm/test/tools/llvm-offload-binary,
// clang/test/Driver/offload-packager.c, and the inputs of
// llvm/test/tools/llvm-objdump/Offloading), checked here against LLVM
// 22.1.8's tool: each test runs llvm-offload-binary-22 and ours on the same
// inputs, in two directories, and wants the same exit status, stdout,
// stderr and files. Where LLVM's tests exercise something only LLVM main
// has (nested extraction, compression, member= selection), the test pins
// what 22.1.8 does instead.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/ar"
)

// sides holds the directories of one comparison: in/ for inputs both
// tools read, llvm/ and ours/ where each tool runs and writes.
type sides struct {
	t                 *testing.T
	root, llvm, ours  string
	llvmTool, ourTool string
	env               []string
}

func newSides(t *testing.T) *sides {
	t.Helper()
	s := &sides{t: t, root: t.TempDir(), llvmTool: llvmtest.Tool(t, llvmtest.Oracle("llvm-offload-binary")), ourTool: offloadBin}
	s.llvm, s.ours = filepath.Join(s.root, "llvm"), filepath.Join(s.root, "ours")
	for _, d := range []string{"in", "llvm", "ours", "tmp"} {
		if err := os.Mkdir(filepath.Join(s.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.env = append(os.Environ(), "TMPDIR="+filepath.Join(s.root, "tmp"))
	return s
}

// in writes an input and returns its path as both work directories see it.
func (s *sides) in(name string, data []byte) string {
	s.t.Helper()
	llvmtest.WriteFile(s.t, filepath.Join(s.root, "in"), name, data)
	return "../in/" + name
}

// exec runs path in dir under the program name llvm-offload-binary, so
// that both tools print the same name before their messages.
func (s *sides) exec(dir, path string, args ...string) llvmtest.Result {
	s.t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Args[0] = "llvm-offload-binary"
	cmd.Dir, cmd.Env = dir, s.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := llvmtest.Result{Stdout: o.String(), Stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("%s %q: %v", path, args, err)
	}
	return r
}

// both runs one command line through each tool; the exit status, stdout
// and stderr must agree. It returns LLVM's result.
func (s *sides) both(args ...string) llvmtest.Result {
	s.t.Helper()
	want := s.exec(s.llvm, s.llvmTool, args...)
	got := s.exec(s.ours, s.ourTool, args...)
	if want.Code < 0 || want.Code > 128 {
		s.t.Fatalf("%q: LLVM crashed; this input belongs with a hand-derived expectation:\n%v", args, want)
	}
	if got != want {
		s.t.Fatalf("%q:\nours: %v\nLLVM: %v", args, got, want)
	}
	return want
}

// files returns the files a work directory holds, by name (run, which
// llvm-objdump goes through, leaves a .tmp directory).
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range llvmtest.DirNames(t, dir) {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && !fi.IsDir() {
			out[n] = string(llvmtest.ReadFile(t, filepath.Join(dir, n)))
		}
	}
	return out
}

// sameFiles wants both work directories to hold the same files with the
// same bytes, and returns them.
func (s *sides) sameFiles() map[string]string {
	s.t.Helper()
	want, got := files(s.t, s.llvm), files(s.t, s.ours)
	if !reflect.DeepEqual(keys(got), keys(want)) {
		s.t.Fatalf("files: ours %q, LLVM %q", keys(got), keys(want))
	}
	for n := range want {
		if got[n] != want[n] {
			s.t.Fatalf("%s differs from LLVM's: %s", n, llvmtest.FirstDiff([]byte(want[n]), []byte(got[n])))
		}
	}
	return want
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// deviceText stands for the device module LLVM's test packages (its own
// source): any bytes do.
var deviceText = []byte("; not really IR, but the packager never looks inside\ndefine void @k() { ret void }\n")

// llvm-offload-binary.ll: a file packaged with arch and triple is listed by
// llvm-objdump with kind <none> and producer none, and comes back byte for
// byte; the same command line from a response file; a file-only image and
// a file-only filter; no filter extracts nothing (22.1.8; LLVM main
// extracts everything and says so); two packages back to back (the CONCAT
// part of compress.test, without compression).
func TestLLVMSuitePackageAndExtract(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 writes OffloadBinary version 2 (all images in one binary) by default, 22.1.8 version 1; the drop-in writes 22.1.8's, offload packager --format-version=2 LLVM 23's bytes", "TestLLVM23OffloadBinaryVersion2")
	s := newSides(t)
	src := s.in("dev.ll", deviceText)
	image := "--image=file=" + src + ",arch=abc,triple=x-y-z"
	s.both("-o", "p.bin", image)
	s.sameFiles()
	const listed = "OFFLOADING IMAGE [0]:\nkind            <none>\narch            abc\ntriple          x-y-z\nproducer        none\n"
	if got := objdumpImages(t, s.ours, "p.bin"); got != listed {
		t.Fatalf("llvm-objdump-22 --offloading lists our package as\n%s\nwant\n%s", got, listed)
	}
	s.both("p.bin", "--image=file=back.ll,arch=abc,triple=x-y-z")
	if got := s.sameFiles()["back.ll"]; got != string(deviceText) {
		t.Fatalf("extracted image %q, want the packaged file", got)
	}

	rsp := s.in("args.rsp", []byte("-o r.bin "+image+"\n"))
	s.both("@" + rsp)
	if f := s.sameFiles(); f["r.bin"] != f["p.bin"] {
		t.Fatal("the response file packaged other bytes than the same command line")
	}

	s.both("-o", "bare.bin", "--image=file="+src)
	s.both("bare.bin", "--image=file=bare.out")
	if got := s.sameFiles()["bare.out"]; got != string(deviceText) {
		t.Fatalf("file-only filter extracted %q", got)
	}

	before := s.sameFiles()
	if r := s.both("p.bin"); r.Stdout != "" || r.Stderr != "" || r.Code != 0 {
		t.Fatalf("extraction without --image: %v", r)
	}
	if after := s.sameFiles(); !reflect.DeepEqual(after, before) {
		t.Fatalf("extraction without --image wrote %q", keys(after))
	}

	cat := s.in("cat.bin", []byte(before["p.bin"]+before["bare.bin"]))
	s.both(cat, "--image=file=first,arch=abc", "--image=file=second,triple=")
	f := s.sameFiles()
	if f["first"] != string(deviceText) || f["second"] != string(deviceText) {
		t.Fatalf("images of concatenated packages: %q, %q", f["first"], f["second"])
	}
	if n := strings.Count(objdumpImages(t, s.ours, "../in/cat.bin"), "OFFLOADING IMAGE"); n != 2 {
		t.Fatalf("llvm-objdump-22 lists %d images in two packages back to back", n)
	}
}

// llvm-offload-binary.ll, nested part: packages packaged as images of
// packages, one and two levels deep, mixed with plain images. The bytes
// are LLVM's; LLVM 22.1.8 (unlike main) neither lists nor extracts the
// inner images, and an inner package comes back whole through its outer
// metadata.
func TestLLVMSuiteNestedPackages(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 writes OffloadBinary version 2 (all images in one binary) by default, 22.1.8 version 1; the drop-in writes 22.1.8's, offload packager --format-version=2 LLVM 23's bytes", "TestLLVM23OffloadBinaryVersion2")
	s := newSides(t)
	src := s.in("dev.ll", deviceText)
	img := func(file, arch string) string { return "--image=file=" + file + ",arch=" + arch + ",triple=x-y-z" }
	s.both("-o", "two.bin", img(src, "abc"), img(src, "def"))
	s.both("-o", "nested.bin", img("two.bin", "nested"))
	s.both("-o", "mixed.bin", img("two.bin", "nested"), img(src, "ghi"))
	s.both("-o", "deep.bin", img("mixed.bin", "nested"), img("two.bin", "nested2"))
	s.sameFiles()

	listing := objdumpImages(t, s.ours, "deep.bin")
	if strings.Count(listing, "OFFLOADING IMAGE") != 2 || strings.Contains(listing, "[0.0]") ||
		!strings.Contains(listing, "arch            nested2\n") {
		t.Fatalf("llvm-objdump-22 (22.1.8 lists no nested images) shows:\n%s", listing)
	}

	before := s.sameFiles()
	s.both("nested.bin")
	s.both("mixed.bin", "--image=file=abc.out,arch=abc") // only inside the inner package
	if after := s.sameFiles(); !reflect.DeepEqual(after, before) {
		t.Fatalf("22.1.8 extracts nothing from inside a nested package; the tools wrote %q", keys(after))
	}
	s.both("mixed.bin", "--image=file=inner.bin,arch=nested,triple=x-y-z", "--image=file=ghi.out,arch=ghi")
	f := s.sameFiles()
	if f["inner.bin"] != f["two.bin"] || f["ghi.out"] != string(deviceText) {
		t.Fatal("the inner package or the plain image did not come back whole")
	}
}

// le64 overwrites the 8 bytes at off of a copy of b.
func le64(b []byte, off int, v uint64) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

// llvm-offload-binary-malformed.ll and bad-offload.input: a file that
// starts with the magic but holds no binary is invalid data; a package of
// such a file is fine, and (22.1.8: no nested parsing) extracting from it
// is too. The other inputs spell out the rest of LLVM 22's checks, in its
// order, each refused by both tools with the same message and no output.
func TestLLVMSuiteMalformedInputs(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 refuses a package that 22.1.8 and ours read (wrap.bin: Invalid data was encountered while parsing the file)", "the LLVM 23 run of this test; docs/compatibility.md")
	s := newSides(t)
	const magic = "\x10\xff\x10\xad"
	bad := s.in("bad.input", []byte(magic+"\n"))
	s.both("-o", "wrap.bin", "--image=file="+bad+",arch=nested,triple=x-y-z")
	s.both("wrap.bin")
	s.both("wrap.bin", "--image=file=bad.out,arch=nested")
	if f := s.sameFiles(); f["bad.out"] != magic+"\n" {
		t.Fatalf("the malformed image came back as %q", f["bad.out"])
	}

	src := s.in("dev.ll", deviceText)
	s.both("-o", "good.bin", "--image=file="+src+",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp")
	good := []byte(s.sameFiles()["good.bin"])
	size := uint64(len(good))
	const invalid, eof = "Invalid data was encountered while parsing the file", "The end of the file was unexpectedly encountered"
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"magic and newline", []byte(magic + "\n"), invalid},
		{"magic only", []byte(magic), invalid},
		{"header only", good[:32], invalid},
		{"one byte short of a header and an entry", good[:71], invalid},
		{"truncated", good[:len(good)-8], eof},
		{"version 0", le64(good, 4, uint64(size)<<32), invalid},
		{"version 4", le64(good, 4, uint64(size)<<32|4), invalid},
		{"size below an entry", le64(good, 8, 32), eof},
		{"size past the end", le64(good, 8, size+8), eof},
		{"entry offset past the end", le64(good, 16, size), eof},
		{"entry size past the end", le64(good, 24, size), eof},
		{"image offset past the end", le64(good, 32+24, size+8), eof},
		{"string offset past the end", le64(good, 32+8, size+8), eof},
		{"junk after a binary", append(bytes.Clone(good), "\x01junk"...), invalid},
		{"second binary short", append(bytes.Clone(good), good[:40]...), invalid},
		{"second binary truncated", append(bytes.Clone(good), good[:100]...), eof},
		// llvm-objdump's warning.test: a good binary, then one whose
		// EntryOffset is far past its end.
		{"entry offset far out after a good binary", append(bytes.Clone(good), le64(good, 16, 999999999)...), eof},
	}
	for _, tc := range cases {
		in := s.in(strings.ReplaceAll(tc.name, " ", "_"), tc.in)
		r := s.both(in, "--image=file=out")
		if r.Code != 1 || r.Stderr != "llvm-offload-binary: error: "+tc.want+"\n" {
			t.Errorf("%s: %v\nwant the error %q", tc.name, r, tc.want)
		}
	}
	s.sameFiles() // nothing written by the refused extractions
	if _, err := os.Stat(filepath.Join(s.ours, "out")); err == nil {
		t.Error("a refused extraction wrote its output")
	}
}

// Where LLVM 22 reads past a binary (docs/compatibility.md), a
// hand-derived expectation: an image longer than what follows its offset,
// which LLVM writes out with bytes from beyond the binary, and more
// string entries than the binary holds, on which it may crash. Ours
// refuses both as an unexpected end of file and writes nothing.
func TestLLVMSuiteReadsPastBinary(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 writes OffloadBinary version 2 (all images in one binary) by default, 22.1.8 version 1; the drop-in writes 22.1.8's, offload packager --format-version=2 LLVM 23's bytes", "TestLLVM23OffloadBinaryVersion2")
	s := newSides(t)
	src := s.in("dev.ll", deviceText)
	s.both("-o", "good.bin", "--image=file="+src+",triple=x-y-z,arch=abc")
	good := []byte(s.sameFiles()["good.bin"])
	imageSize := binary.LittleEndian.Uint64(good[32+32:])
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"long.bin", le64(good, 32+32, imageSize+200)},
		{"strings.bin", le64(good, 32+16, 100000)},
	} {
		in := s.in(c.name, c.in)
		r := s.exec(s.ours, s.ourTool, in, "--image=file=out")
		if r.Code != 1 || r.Stderr != "llvm-offload-binary: error: The end of the file was unexpectedly encountered\n" {
			t.Errorf("%s: %v", c.name, r)
		}
		if _, err := os.Stat(filepath.Join(s.ours, "out")); err == nil {
			t.Errorf("%s: ours wrote an image", c.name)
		}
		t.Logf("%s: LLVM 22 exits %d", c.name, s.exec(s.llvm, s.llvmTool, in, "--image=file="+c.name+".out").Code)
	}
	if out, err := os.ReadFile(filepath.Join(s.llvm, "long.bin.out")); err == nil && uint64(len(out)) != imageSize+200 {
		t.Errorf("LLVM 22 wrote %d bytes for the long image; the row in docs/compatibility.md needs another look", len(out))
	}
}

// clang/test/Driver/offload-packager.c: clang's own object packaged five
// times under different targets; extraction by every key; generated names
// (the input has no extension) for a kind filter that leaves the HIP image
// out; extraction from a host object that clang embedded the package in;
// --archive from an archive of that object. The bitcode check is a
// difference kept: see TestLLVMSuiteBitcodeInput.
func TestLLVMSuiteDriverPackages(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 extracts images for --image=kind=... filters that 22.1.8 (and ours) match to none, in packages clang and objects hold; not characterized further", "the LLVM 23 run of this test; docs/compatibility.md")
	clang := llvmtest.Tool(t, llvmtest.Oracle("clang"))
	ar := llvmtest.Tool(t, llvmtest.Oracle("llvm-ar"))
	s := newSides(t)
	s.in("k.c", []byte("int device_value = 42;\nint host(void) { return device_value; }\n"))
	in := filepath.Join(s.root, "in")
	llvmtest.Run(t, in, clang, "-cc1", "k.c", "-triple", "x86_64-unknown-linux-gnu", "-emit-obj", "-o", "elf.o")
	elf := string(llvmtest.ReadFile(t, filepath.Join(in, "elf.o")))
	targets := []string{"kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70", "kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_80",
		"kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908", "kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a",
		"kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90c"}
	var images []string
	for _, tg := range targets {
		images = append(images, "--image=file=../in/elf.o,"+tg)
	}
	s.both(append([]string{"-o", "package"}, images...)...)
	s.both("package", "--image=file=sm_70.o,"+targets[0], "--image=file=gfx908.o,"+targets[2])
	s.both("package", "--image=kind=openmp")
	f := s.sameFiles()
	for _, n := range []string{"sm_70.o", "gfx908.o", "package-nvptx64-nvidia-cuda-sm_70.0.o", "package-nvptx64-nvidia-cuda-sm_80.1.o",
		"package-amdgcn-amd-amdhsa-gfx908.2.o", "package-amdgcn-amd-amdhsa-gfx90a.3.o"} {
		if f[n] != elf {
			t.Errorf("%s is not the packaged object", n)
		}
	}
	if _, ok := f["package-amdgcn-amd-amdhsa-gfx90c.4.o"]; ok {
		t.Error("kind=openmp extracted the HIP image")
	}

	llvmtest.Run(t, filepath.Join(s.root, "llvm"), clang, "-cc1", "../in/k.c", "-triple", "x86_64-unknown-linux-gnu", "-emit-obj",
		"-o", "../in/host.o", "-fembed-offload-object=package")
	llvmtest.Run(t, in, ar, "rcs", "host.a", "host.o")
	s.both("../in/host.o", "--image=file=from-object.o,"+targets[1])
	s.both("../in/host.a", "--archive", "--image=file=gfx908.a,arch=gfx908")
	f = s.sameFiles()
	if f["from-object.o"] != elf {
		t.Error("the image extracted from the host object is not the packaged object")
	}
	if members := llvmtest.Run(t, s.ours, ar, "t", "gfx908.a"); members != "host.o\n" {
		t.Errorf("--archive wrote members %q, want the one host.o", members)
	}
}

// offload-packager.c extracts from bitcode with an embedded package (its
// RUN line reads the package itself, so LLVM's test does not in fact get
// there). LLVM 22 finds the package through the module's
// llvm.embedded.objects metadata; we read no IR and refuse bitcode rather
// than find nothing (docs/compatibility.md).
func TestLLVMSuiteBitcodeInput(t *testing.T) {
	clang := llvmtest.Tool(t, llvmtest.Oracle("clang"))
	s := newSides(t)
	src := s.in("dev.ll", deviceText)
	s.both("-o", "../in/p.bin", "--image=file="+src+",triple=amdgcn-amd-amdhsa,arch=gfx908,kind=openmp")
	s.in("h.c", []byte("int host(void) { return 1; }\n"))
	llvmtest.Run(t, filepath.Join(s.root, "in"), clang, "-cc1", "h.c", "-triple", "x86_64-unknown-linux-gnu", "-emit-llvm-bc",
		"-o", "h.bc", "-fembed-offload-object=p.bin")
	args := []string{"../in/h.bc", "--image=file=out.o,arch=gfx908"}
	if r := s.exec(s.llvm, s.llvmTool, args...); r.Code != 0 || string(llvmtest.ReadFile(t, filepath.Join(s.llvm, "out.o"))) != string(deviceText) {
		t.Fatalf("LLVM 22 no longer extracts from bitcode as this test expects: %v", r)
	}
	r := s.exec(s.ours, s.ourTool, args...)
	if r.Code != 1 || !strings.Contains(r.Stderr, "error: ") || !strings.Contains(r.Stderr, "h.bc: LLVM bitcode") {
		t.Fatalf("ours on bitcode: %v\nwant an error naming the input", r)
	}
	if names := llvmtest.DirNames(t, s.ours); len(names) != 0 {
		t.Fatalf("ours wrote %q", names)
	}
}

// offloadYAML is a package in yaml2obj's !Offload form: two binaries, one
// image each, with data (llvm-objdump's Inputs/binary.yaml has none).
const offloadYAML = `!Offload
Members:
  - ImageKind:   IMG_Bitcode
    OffloadKind: OFK_OpenMP
    String:
      - Key:   triple
        Value: amdgcn-amd-amdhsa
      - Key:   arch
        Value: gfx1030
    Content: "4243c0de0102"
  - ImageKind:   IMG_Cubin
    OffloadKind: OFK_Cuda
    String:
      - Key:   triple
        Value: nvptx64-nvidia-cuda
      - Key:   arch
        Value: sm_89
    Content: "7f454c46"
`

// elfYAML is an ELF file of the given type with one section; content
// (hex) is its contents, alignment its alignment, and a 3-byte section in
// front makes the offset odd.
func elfYAML(typ, secType, content string, align int) string {
	return fmt.Sprintf(`!ELF
FileHeader:
  Class: ELFCLASS64
  Data:  ELFDATA2LSB
  Type:  %s
Sections:
  - Name:         .odd
    Type:         SHT_PROGBITS
    AddressAlign: 1
    Content:      "616263"
  - Name:         .llvm.offloading
    Type:         %s
    Flags:        [ SHF_EXCLUDE ]
    AddressAlign: %d
    Content:      "%s"
`, typ, secType, align, content)
}

func yaml2obj(t *testing.T, dir, name, yaml string) string {
	t.Helper()
	llvmtest.WriteFile(t, dir, name+".yaml", []byte(yaml))
	llvmtest.Run(t, dir, llvmtest.Tool(t, llvmtest.Oracle("yaml2obj")), name+".yaml", "-o", name)
	return "../in/" + name
}

// The inputs of llvm-objdump's Offloading tests, read by the packager:
// binaries written by yaml2obj; ELF executables, shared objects and
// relocatable objects carrying them, at an odd offset and alignment 1
// (alignment.test); a section of the right type but only four bytes
// (failure.test: with a wrong magic, and with the magic); a section of
// another type (ignored); and, after ignore-shared-object.ll, a real
// shared object as an image (opaque bytes) and as an input (no section:
// nothing).
func TestLLVMSuiteObjdumpInputs(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 extracts images for --image=kind=... filters that 22.1.8 (and ours) match to none, in packages clang and objects hold; not characterized further", "the LLVM 23 run of this test; docs/compatibility.md")
	clang := llvmtest.Tool(t, llvmtest.Oracle("clang"))
	s := newSides(t)
	in := filepath.Join(s.root, "in")
	bin := yaml2obj(t, in, "offload.bin", offloadYAML)
	content := hex.EncodeToString(llvmtest.ReadFile(t, filepath.Join(in, "offload.bin")))
	filters := []string{"--image=file=gfx.bc,arch=gfx1030", "--image=kind=cuda"}
	s.both(append([]string{bin}, filters...)...)
	for _, typ := range []string{"ET_EXEC", "ET_DYN", "ET_REL"} {
		for _, align := range []int{1, 8} {
			obj := yaml2obj(t, in, fmt.Sprintf("%s-%d", typ, align), elfYAML(typ, "SHT_LLVM_OFFLOADING", content, align))
			s.both(append([]string{obj}, filters...)...)
		}
	}
	f := s.sameFiles()
	if f["gfx.bc"] != "BC\xc0\xde\x01\x02" || len(f) != 8 { // gfx.bc and a generated cubin name per input
		t.Fatalf("extracted %q; gfx.bc = %q", keys(f), f["gfx.bc"])
	}

	other := yaml2obj(t, in, "progbits.o", elfYAML("ET_REL", "SHT_PROGBITS", content, 8))
	s.both(other, "--image=file=none.out")
	for _, c := range []struct{ name, content, want string }{
		{"wrong-magic.o", "10ffb0ad", "Invalid data was encountered while parsing the file"},
		{"magic-only.o", "10ff10ad", "Invalid data was encountered while parsing the file"},
	} {
		obj := yaml2obj(t, in, c.name, elfYAML("ET_EXEC", "SHT_LLVM_OFFLOADING", c.content, 8))
		if r := s.both(obj, "--image=file=none.out"); r.Code != 1 || !strings.HasSuffix(r.Stderr, "error: "+c.want+"\n") {
			t.Errorf("%s: %v", c.name, r)
		}
	}

	s.in("lib.c", []byte("int shared_fn(void) { return 7; }\n"))
	llvmtest.Run(t, in, clang, "-shared", "-fPIC", "lib.c", "-o", "lib.so")
	s.both("-o", "so.pkg", "--image=file=../in/lib.so,arch=abc,triple=x-y-z")
	s.both("so.pkg", "--image=file=lib.out,arch=abc")
	s.both("../in/lib.so", "--image=file=none.out")
	f = s.sameFiles()
	if _, ok := f["none.out"]; ok || f["lib.out"] != string(llvmtest.ReadFile(t, filepath.Join(in, "lib.so"))) {
		t.Fatalf("shared object: files %q", keys(f))
	}
	if n := strings.Count(objdumpImages(t, s.ours, "so.pkg"), "OFFLOADING IMAGE"); n != 1 {
		t.Fatalf("llvm-objdump-22 lists %d images in a package of one shared object", n)
	}
}

// member-extract.test: two archive members holding images with the same
// metadata. LLVM main selects one with member=; 22.1.8 takes member as
// one more metadata key, which no image has, so nothing is written.
// Without it both images match one file: a warning, and the last wins.
func TestLLVMSuiteArchiveMembers(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 extracts images for --image=kind=... filters that 22.1.8 (and ours) match to none, in packages clang and objects hold; not characterized further", "the LLVM 23 run of this test; docs/compatibility.md")
	llvmAr := llvmtest.Tool(t, llvmtest.Oracle("llvm-ar"))
	s := newSides(t)
	a, b := s.in("contentA", []byte("aaaa\n")), s.in("contentB", []byte("bbbb\n"))
	meta := "triple=x-y-z,arch=gfx90a,kind=openmp"
	s.both("-o", "../in/a.o", "--image=file="+a+","+meta)
	s.both("-o", "../in/b.o", "--image=file="+b+","+meta)
	llvmtest.Run(t, filepath.Join(s.root, "in"), llvmAr, "rcs", "lib.a", "a.o", "b.o")
	s.both("../in/lib.a", "--image=member=a.o,"+meta+",file=outA")
	if f := s.sameFiles(); len(f) != 0 {
		t.Fatalf("member= (a metadata key in 22.1.8) matched: %q", keys(f))
	}
	r := s.both("../in/lib.a", "--image="+meta+",file=both")
	if r.Stderr != "llvm-offload-binary: warning: Multiple inputs match to a single file, 'both'\n" {
		t.Fatalf("no warning for two images into one file: %v", r)
	}
	if f := s.sameFiles(); f["both"] != "bbbb\n" {
		t.Fatalf("'both' holds %q, want the last member's image", f["both"])
	}

	// Member names are labels only: one that is no local path is searched
	// too, and names its image's member in an --archive output.
	pkg := llvmtest.ReadFile(t, filepath.Join(s.root, "in", "b.o"))
	up := s.in("up.a", archiveOf(t, "../up.o", pkg))
	s.both(up, "--archive", "--image="+meta+",file=up-out.a")
	if f := s.sameFiles(); !strings.Contains(f["up-out.a"], "../up.o/") {
		t.Fatalf("up-out.a has no member ../up.o: %q", f["up-out.a"])
	}
}

// archiveOf is a GNU archive of one member, written by lib/ar (llvm-ar
// keeps only the base names of the files it is given).
func archiveOf(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ar.WriteArchive(&b, []ar.WriterMember{{Name: name, Size: int64(len(data)), Data: bytes.NewReader(data)}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// coffYAML is a COFF object for machine with a .text section and one
// section of the given name holding content (hex).
func coffYAML(machine, name, content string) string {
	return fmt.Sprintf(`--- !COFF
header:
  Machine:         %s
  Characteristics: []
sections:
  - Name:            .text
    Characteristics: [ IMAGE_SCN_CNT_CODE ]
    SectionData:     c3
  - Name:            '%s'
    Characteristics: [ IMAGE_SCN_LNK_REMOVE, IMAGE_SCN_MEM_DISCARDABLE ]
    Alignment:       8
    SectionData:     "%s"
symbols:
`, machine, name, content)
}

// bigObj lays out a bigobj COFF object by hand (yaml2obj cannot): one
// section named through the string table in base64 ("//AAAAAE", offset 4).
func bigObj(section []byte) []byte {
	le := binary.LittleEndian
	const header, entry = 56, 40
	b := make([]byte, header+entry)
	le.PutUint16(b[2:], 0xffff)
	le.PutUint16(b[4:], 2)      // version
	le.PutUint16(b[6:], 0x8664) // machine
	copy(b[12:], []byte{0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8})
	le.PutUint32(b[44:], 1) // sections
	copy(b[header:], "//AAAAAE")
	le.PutUint32(b[header+16:], uint32(len(section)))
	le.PutUint32(b[header+20:], uint32(len(b)))
	b = append(b, section...)
	le.PutUint32(b[48:], uint32(len(b))) // symbols (none), then the string table
	strtab := append([]byte{0, 0, 0, 0}, ".llvm.offloading\x00"...)
	le.PutUint32(strtab, uint32(len(strtab)))
	return append(b, strtab...)
}

// llvm-objdump's coff.test: LLVM 22 also finds packages in COFF objects,
// in sections whose names start with .llvm.offloading. Objects from
// clang-22 -fembed-offload-object for Windows targets and from yaml2obj
// for other machines and names, a bigobj, and damaged objects, which both
// tools refuse with the same words.
func TestLLVMSuiteCOFF(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 extracts images for --image=kind=... filters that 22.1.8 (and ours) match to none, in packages clang and objects hold; not characterized further", "the LLVM 23 run of this test; docs/compatibility.md")
	clang := llvmtest.Tool(t, llvmtest.Oracle("clang"))
	s := newSides(t)
	in := filepath.Join(s.root, "in")
	yaml2obj(t, in, "offload.bin", offloadYAML)
	raw := llvmtest.ReadFile(t, filepath.Join(in, "offload.bin"))
	content := hex.EncodeToString(raw)
	filters := []string{"--image=kind=openmp", "--image=kind=cuda"}
	var inputs []string
	for _, target := range []string{"x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc", "i686-pc-windows-gnu"} {
		name := target + ".obj"
		llvmtest.Run(t, in, clang, "--target="+target, "-c", "-x", "c", "/dev/null", "-o", name, "-Xclang", "-fembed-offload-object=offload.bin")
		inputs = append(inputs, "../in/"+name)
	}
	for i, c := range []struct{ machine, name string }{
		{"IMAGE_FILE_MACHINE_ARM64EC", ".llvm.offloading"}, {"IMAGE_FILE_MACHINE_ARMNT", ".llvm.offloading$b"},
		{"IMAGE_FILE_MACHINE_AMD64", ".llvm.offloadingX"}, {"IMAGE_FILE_MACHINE_AMD64", ".llvm.offload"},
	} {
		inputs = append(inputs, yaml2obj(t, in, fmt.Sprintf("y%d.obj", i), coffYAML(c.machine, c.name, content)))
	}
	inputs = append(inputs, s.in("big.obj", bigObj(raw)))
	for _, obj := range inputs {
		s.both(append([]string{obj}, filters...)...)
	}
	f := s.sameFiles()
	if len(f) != 2*(len(inputs)-1) { // y3.obj's section is not searched
		t.Fatalf("extracted %q", keys(f))
	}

	good := llvmtest.ReadFile(t, filepath.Join(in, "x86_64-pc-windows-msvc.obj"))
	le := binary.LittleEndian
	sections := int(le.Uint16(good[2:]))
	strtab := good[le.Uint32(good[8:])+18*le.Uint32(good[12:]):]
	var offloading int // the section table entry of .llvm.offloading
	for i := 0; i < sections; i++ {
		field, _, _ := strings.Cut(string(good[20+40*i:28+40*i]), "\x00")
		if at, err := strconv.Atoi(strings.TrimPrefix(field, "/")); err == nil && strings.HasPrefix(string(strtab[at:]), ".llvm.offloading\x00") {
			offloading = 20 + 40*i
		}
	}
	if offloading == 0 {
		t.Fatal("clang-22's COFF object has no .llvm.offloading section named through its string table")
	}
	patch := func(off int, v uint32) []byte {
		c := bytes.Clone(good)
		le.PutUint32(c[off:], v)
		return c
	}
	named := func(n string) []byte {
		c := bytes.Clone(good)
		copy(c[offloading:offloading+8], n+strings.Repeat("\x00", 8-len(n)))
		return c
	}
	// Names are resolved as the search reaches them (as are contents): a
	// damaged package is found before a bad name in the section after it.
	if (offloading-20)/40+1 >= sections {
		t.Fatal("clang-22's COFF object has no section after .llvm.offloading")
	}
	shortThenBadName := patch(offloading+16, 40)
	copy(shortThenBadName[offloading+40:offloading+48], "/4x\x00\x00\x00\x00\x00")
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"header", good[:12], "The end of the file was unexpectedly encountered"},
		{"section table", good[:20+40*sections-1], "The end of the file was unexpectedly encountered"},
		{"section data", patch(offloading+16, uint32(len(good))), "The end of the file was unexpectedly encountered"},
		{"no symbol table", patch(8, 0), "string table empty"},
		{"name not a number", named("/4x"), "invalid section name"},
		{"name past the string table", named("/99999"), "The end of the file was unexpectedly encountered"},
		{"short package", patch(offloading+16, 40), "Invalid data was encountered while parsing the file"},
		{"short package before a bad name", shortThenBadName, "Invalid data was encountered while parsing the file"},
	} {
		obj := s.in(strings.ReplaceAll(c.name, " ", "_")+".obj", c.in)
		if r := s.both(obj, "--image=file=none.out"); r.Code != 1 || r.Stderr != "llvm-offload-binary: error: "+c.want+"\n" {
			t.Errorf("%s: %v", c.name, r)
		}
	}
	s.sameFiles()
}

// compress.test and compress-level-zlib.test need LLVM main's
// --compress, --compression-format and --compression-level; 22.1.8 has
// none of them, and neither has our drop-in (offload packager's own
// --compress is tested in tool/offload). For the spellings with a value
// only the first line is compared: LLVM's "Did you mean" then weighs its
// hidden options and the whole argument for options that take no value,
// which tool/internal/cl does not.
func TestLLVMSuiteMainOnlyOptions(t *testing.T) {
	s := newSides(t)
	src := s.in("dev.ll", deviceText)
	image := "--image=file=" + src + ",arch=abc,triple=x-y-z"
	if r := s.both("-o", "c.bin", "--compress", image); r.Code == 0 || !strings.Contains(r.Stderr, "Unknown command line argument '--compress'") {
		t.Errorf("--compress: %v", r)
	}
	for _, opt := range []string{"--compression-format=zstd", "--compression-level=9"} {
		want := s.exec(s.llvm, s.llvmTool, "-o", "c.bin", opt, image)
		got := s.exec(s.ours, s.ourTool, "-o", "c.bin", opt, image)
		first := func(r llvmtest.Result) string { l, _, _ := strings.Cut(r.Stderr, "\n"); return l }
		if want.Code == 0 || got.Code != want.Code || first(got) != first(want) ||
			!strings.Contains(first(want), "Unknown command line argument '"+opt+"'") {
			t.Errorf("%s:\nours: %v\nLLVM: %v", opt, got, want)
		}
	}
	if f := s.sameFiles(); len(f) != 0 {
		t.Fatalf("refused command lines wrote %q", keys(f))
	}
}
