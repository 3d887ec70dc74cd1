package regcheck

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// The records in testdata are offload_registration_test's, of the examples
// (docs/provenance.md): CUDA vector_add (whole program, sm_70, sm_90,
// compute_90), HIP saxpy (rdc, three targets), OpenMP vecadd (LLVM 16,
// legacy entries, x86_64 host-CPU device).
var examples = []struct {
	file    string
	targets map[string][][]string
	host    []string // the kernels the recorder binary has stubs or host functions for
}{
	{"testdata/cuda_vector_add.record", map[string][][]string{"cuda": {{"compute_90", "sm_70", "sm_90"}}},
		[]string{"_Z3AddPKfS0_Pfif"}},
	{"testdata/hip_saxpy_rdc.record", map[string][][]string{"hip": {{"gfx1030", "gfx906", "gfx90a:xnack+"}}},
		[]string{"_Z11SaxpyKernelfPKfPfi"}},
	{"testdata/openmp_vecadd.record", map[string][][]string{"openmp": {{"x86_64-pc-linux-gnu"}}},
		[]string{"__omp_offloading_fe00_51458b_main_l15"}},
}

func set(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func check(t *testing.T, b []byte, opt Options) *Report {
	t.Helper()
	rep, err := Check(mustParse(t, b), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wantProblems fails unless the report has problems and each of wants is in one.
func wantProblems(t *testing.T, rep *Report, wants ...string) {
	t.Helper()
	if rep.OK() {
		t.Fatalf("check passed, want problems %q; summary %q", wants, rep.Summary)
	}
	all := strings.Join(rep.Problems, "\n")
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("no problem says %q; problems:\n%s", w, all)
		}
	}
}

func TestExamplesPass(t *testing.T) {
	for _, ex := range examples {
		rep := check(t, mustRead(t, ex.file), Options{Targets: ex.targets, Host: set(ex.host)})
		if !rep.OK() || len(rep.Summary) != 1 {
			t.Errorf("%s: problems %q, summary %q", ex.file, rep.Problems, rep.Summary)
		}
	}
}

// A declared target the fat binary lacks, and one it holds undeclared.
func TestTargetMissingFromFatBinary(t *testing.T) {
	b := mustRead(t, examples[0].file)
	rep := check(t, b, Options{Targets: map[string][][]string{"cuda": {{"compute_90", "sm_70", "sm_80", "sm_90"}}}})
	wantProblems(t, rep, "missing: sm_80")
	rep = check(t, b, Options{Targets: map[string][][]string{"cuda": {{"sm_70", "sm_90"}}}})
	wantProblems(t, rep, "not declared: compute_90")
	// The HIP bundle, with one target fewer declared.
	rep = check(t, mustRead(t, examples[1].file), Options{Targets: map[string][][]string{"hip": {{"gfx906", "gfx90a:xnack+"}}}})
	wantProblems(t, rep, "not declared: gfx1030")
}

// renameIn replaces old by new (the same length) inside one image of the
// record's first CUDA fat binary.
func renameIn(t *testing.T, b []byte, arch int, kind nvfatbin.Kind, old, new string) []byte {
	t.Helper()
	rec := mustParse(t, b)
	blob := rec.Units[0].Blobs[0]
	entries, err := nvfatbin.ReadAll(rec.Open(blob), blob.Size)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), b...)
	for _, e := range entries {
		if e.Arch == arch && e.Kind == kind {
			start := blob.Offset + e.Offset
			part := out[start : start+e.Size]
			if !bytes.Contains(part, []byte(old)) {
				t.Fatalf("no %s in the sm_%d image", old, arch)
			}
			copy(part, bytes.ReplaceAll(part, []byte(old), []byte(new)))
			return out
		}
	}
	t.Fatalf("no image for %d", arch)
	return nil
}

// A kernel renamed in the sm_90 cubin only.
func TestKernelRenamedInOneImage(t *testing.T) {
	b := renameIn(t, mustRead(t, examples[0].file), 90, nvfatbin.KindELF, "_Z3AddPKfS0_Pfif", "_Z3AddPKfS0_Pfig")
	ex := examples[0]
	rep := check(t, b, Options{Targets: ex.targets, Host: set(ex.host)})
	wantProblems(t, rep,
		"kernel _Z3AddPKfS0_Pfif is registered by the host half but is not in the sm_90 cubin (cuda fat binary #0)",
		"the sm_90 compile named it _Z3AddPKfS0_Pfig")
	if len(rep.Problems) != 1 {
		t.Errorf("want one problem, got %q", rep.Problems)
	}
	// In the PTX: the .entry line.
	b = renameIn(t, mustRead(t, examples[0].file), 90, nvfatbin.KindPTX, "_Z3AddPKfS0_Pfif", "_Z3AddPKfS0_Pfig")
	wantProblems(t, check(t, b, Options{Host: set(ex.host)}), "is not in the compute_90 PTX")
}

// removeLine drops the first line that is exactly line.
func removeLine(t *testing.T, b []byte, line string) []byte {
	t.Helper()
	i := bytes.Index(b, []byte("\n"+line+"\n"))
	if i < 0 {
		t.Fatalf("no line %q", line)
	}
	return withEnd(append(append([]byte(nil), b[:i+1]...), b[i+len(line)+2:]...))
}

// A registration call removed: the image has the kernel and the host a
// launch stub for it, but nothing registers it.
func TestRegistrationCallRemoved(t *testing.T) {
	for _, c := range []struct{ ex, line, want string }{
		{examples[0].file, "function 0 _Z3AddPKfS0_Pfif", "kernel _Z3AddPKfS0_Pfif of the sm_70 cubin, sm_90 cubin, compute_90 PTX (cuda fat binary #0) is registered by no host code: the host program has a launch stub for it"},
		{examples[1].file, "function 0 _Z11SaxpyKernelfPKfPfi", "kernel _Z11SaxpyKernelfPKfPfi of the gfx1030 code object, gfx906 code object, gfx90a:xnack+ code object (hip fat binary #0) is registered by no host code"},
		{examples[2].file, "function 0 __omp_offloading_fe00_51458b_main_l15", "kernel __omp_offloading_fe00_51458b_main_l15 of the x86_64-pc-linux-gnu shared object (openmp fat binary #0) is registered by no host code"},
	} {
		opt := Options{}
		for _, ex := range examples {
			if ex.file == c.ex {
				opt = Options{Targets: ex.targets, Host: set(ex.host)}
			}
		}
		b := removeLine(t, mustRead(t, c.ex), c.line)
		wantProblems(t, check(t, b, opt), c.want)
	}
	// A registered variable removed from the image is reported too.
	b := renameIn(t, mustRead(t, examples[0].file), 70, nvfatbin.KindELF, "_ZL4bias", "_ZL4bia$")
	wantProblems(t, check(t, b, Options{Host: set(examples[0].host)}), "variable _ZL4bias is registered by the host half but is not in the sm_70 cubin")
}

// The Thrust program of tests/gpu built by the rules of 61540b7: CUB's
// kernels registered as CUB_101702_700_900_NS, in the images as _700_NS and
// _900_NS. On an H200 it failed with cudaErrorSymbolNotFound.
func TestThrustUnfixed(t *testing.T) {
	b, host := namesRecord(t, "testdata/thrust_unfixed.names")
	rep := check(t, b, Options{Targets: examples[0].targets, Host: host})
	wantProblems(t, rep,
		"kernel _ZN3cub21CUB_101702_700_900_NS11EmptyKernelIvEEvv is registered by the host half but is not in the sm_70 cubin, sm_90 cubin, compute_90 PTX",
		"CUB/Thrust kernel named after __CUDA_ARCH_LIST__ 700_900 in the host half, 700 in the sm_70 image, 900 in the sm_90 image, 900 in the compute_90 image")
	if len(rep.Problems) != 22 {
		t.Errorf("want 22 problems (22 of the 23 registered kernels are in no image), got %d", len(rep.Problems))
	}
}

// The same program built by these rules passes; six Thrust kernels that
// only device code instantiates are noted.
func TestThrustFixed(t *testing.T) {
	b, host := namesRecord(t, "testdata/thrust_fixed.names")
	rep := check(t, b, Options{Targets: examples[0].targets, Host: host})
	if !rep.OK() {
		t.Fatalf("problems: %q", rep.Problems)
	}
	if len(rep.Notes) != 6 || !strings.Contains(rep.Notes[0], "no host code refers to it") {
		t.Errorf("want 6 notes of device-instantiated kernels, got %q", rep.Notes)
	}
	// Without the host program every unregistered kernel is a problem.
	wantProblems(t, check(t, b, Options{}), "or its registration call is missing")
}

func TestNothingRegistered(t *testing.T) {
	wantProblems(t, check(t, []byte(Magic+"\nend 0\n"), Options{}), "registers no fat binary")
}

func TestKernelOfStub(t *testing.T) {
	for stub, want := range map[string]string{
		"_Z18__device_stub__AddPKfS0_Pfif":                                 "_Z3AddPKfS0_Pfif",
		"_ZN3cub21CUB_101702_700_900_NS26__device_stub__EmptyKernelIvEEvv": "_ZN3cub21CUB_101702_700_900_NS11EmptyKernelIvEEvv",
		"__device_stub__Scale":                                             "Scale",
		"_Z5__device_stub__X":                                              "",
	} {
		got, ok := kernelOfStub(stub)
		if got != want || ok != (want != "") {
			t.Errorf("kernelOfStub(%q) = %q, %v; want %q", stub, got, ok, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good := mustRead(t, examples[0].file)
	for name, b := range map[string][]byte{
		"not a record":       []byte("hello\n"),
		"truncated fatbin":   good[:len(good)/2],
		"size past the end":  []byte(Magic + "\nfatbin 0 cuda 0x466243b1 99999\nxx\nend 1\n"),
		"no newline after":   []byte(Magic + "\nfatbin 0 cuda 0x466243b1 2\nxxyend 1\n"),
		"name before fatbin": []byte(Magic + "\nfunction 0 K\nend 1\n"),
		"bad handle":         []byte(Magic + "\nfunction -1 K\nend 1\n"),
		"unknown line":       []byte(Magic + "\nkernel 0 K\nend 1\n"),
		"two kinds":          []byte(Magic + "\nfatbin 0 cuda 0 0\n\nfatbin 0 hip 0 0\n\nend 2\n"),
		"long line":          append([]byte(Magic+"\nfunction 0 "), bytes.Repeat([]byte("a"), maxLine+1)...),
	} {
		if _, err := Parse(bytes.NewReader(b), int64(len(b))); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// Images that are not what their kind says fail with the unit named, and
// the reader of what the kind's runtime takes saying why: an ELF file is
// no bundle or fat binary, whatever else its head says; a compressed
// bundle (CCOB) is read as HIP's runtime reads it, and what it decodes to
// is read as a bundle.
func TestBadImages(t *testing.T) {
	b := []byte(Magic + "\nfatbin 0 cuda 0x466243b1 4\njunk\nend 1\n")
	if _, err := Check(mustParse(t, b), Options{}); err == nil || !strings.Contains(err.Error(), "cuda fat binary 0") {
		t.Errorf("err = %v", err)
	}
	ccob := hostile.CCOBZlib(append(hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{4}), "code"...))
	for _, c := range []struct {
		unit unit
		want string
	}{
		{unit{"hip", [][]byte{ompImage("k")}, nil}, "hip fat binary 0, image 0: bundle: missing magic"},
		{unit{"hip", [][]byte{ccob}, nil}, "hip fat binary 0, image 0: compressed bundle at offset 0: bundle entry hipv4-amdgcn-amd-amdhsa--gfx906: elfobj: not an ELF file"},
		{unit{"cuda", [][]byte{ompImage("k")}, nil}, "cuda fat binary 0, image 0: nvfatbin: bad magic"},
	} {
		_, err := Check(mustParse(t, record(c.unit)), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

// An entry's target is its ID's target ID as lib/targetid reads IDs
// (clang-offload-bundler's reading): after the five fields of kind and
// triple, an environment or none ("hipv4-amdgcn-amd-amdhsa-gnu-gfx906" is
// gfx906's); the host's entry holds none.
func TestEntryTargets(t *testing.T) {
	obj := withMachine(fakeCubin(0, nil, []string{"K.kd"}), 224)
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa-gnu-gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}
	off := hostile.BundleHeaderSize(ids)
	es := make([]hostile.BundleEntry, len(ids))
	for i, id := range ids {
		es[i] = hostile.BundleEntry{ID: id, Offset: off, Size: uint64(len(obj))}
	}
	rec := record(unit{"hip", [][]byte{hostile.Bundle(es, obj)}, []string{"function K"}})
	rep := check(t, rec, Options{Targets: map[string][][]string{"hip": {{"gfx906", "gfx90a:xnack+"}}}})
	if !rep.OK() || len(rep.Summary) != 1 || !strings.HasPrefix(rep.Summary[0], "hip fat binary #0: gfx906, gfx90a:xnack+;") {
		t.Errorf("problems %q, summary %q", rep.Problems, rep.Summary)
	}
}

// FuzzCheck starts from small records (Go's fuzzer slows to a crawl on
// inputs of tens of kilobytes): a fat binary of a minimal cubin and PTX.
func FuzzCheck(f *testing.F) {
	images := []nvfatbin.Image{
		{Kind: nvfatbin.KindELF, Arch: 70, Data: fakeCubin(70, []string{"K"}, []string{"v"})},
		{Kind: nvfatbin.KindPTX, Arch: 90, Data: fakePTX([]string{"K"}, []string{"v"})},
	}
	fb, err := nvfatbin.Write(images, nvfatbin.WriteOptions{})
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfatbin 0 cuda 0x466243b1 %d\n%s\nfunction 0 K\nvar 0 v\nend 3\n", Magic, len(fb), fb)
	f.Add(b.Bytes())
	f.Add([]byte(Magic + "\nfatbin 0 hip 0x48495046 24\n__CLANG_OFFLOAD_BUNDLE__\nfunction 0 K\nend 2\n"))
	// Entries sharing a payload: a bundle's, compressed or not, an
	// OffloadBinary's; and a compressed OffloadBinary.
	obj := withMachine(fakeCubin(0, nil, []string{"K.kd"}), 224)
	ids := []string{"hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a"}
	off := hostile.BundleHeaderSize(ids)
	shared := hostile.Bundle([]hostile.BundleEntry{{ID: ids[0], Offset: off, Size: uint64(len(obj))}, {ID: ids[1], Offset: off, Size: uint64(len(obj))}}, obj)
	f.Add(record(unit{"hip", [][]byte{shared}, []string{"function K"}}))
	f.Add(record(unit{"hip", [][]byte{hostile.CCOBZlib(shared)}, []string{"function K"}}))
	f.Add(record(unit{"openmp", [][]byte{sharedOffloadBinary(2, ompImage("__omp_offloading_1_k"))}, []string{"function __omp_offloading_1_k"}}))
	f.Add(record(unit{"openmp", [][]byte{compressedOffloadBinary(ompImage("__omp_offloading_1_k"), 64)}, []string{"function __omp_offloading_1_k"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := Parse(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		// A small budget: the fuzzer finds bombs quickly, and the
		// budget's refusal is tested elsewhere.
		_, _ = Check(rec, Options{Targets: map[string][][]string{"cuda": {{"sm_70"}}}, Host: map[string]bool{}, MaxUncompressedSize: 64 << 20})
	})
}
