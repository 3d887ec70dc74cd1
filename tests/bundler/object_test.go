package bundler_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Host sources: a plain function, and one with data, relocations,
// function sections and debug info.
var hostSources = []struct{ src, flags string }{
	{"int foo(void) { return 42; }\n", "-O1"},
	{`#include <stdio.h>
static const char msg[] = "hello from the host";
int counter = 7;
__attribute__((noinline)) int bump(int x) { return counter += x; }
int foo(void) { puts(msg); return bump(35) ; }
`, "-g -ffunction-sections -fdata-sections -O0"},
	// .bss between sections of other alignments, as -fgpu-rdc host code has.
	{`int counter;
static int hidden[100];
int get(int i) { return hidden[i] + counter; }
const char *msg = "hello";
`, "-O1"},
}

// compileHostObject compiles host source 0 into dir/name and returns it.
func compileHostObject(t testing.TB, dir, name string) []byte {
	return compileHost(t, dir, name, 0)
}

func compileHost(t testing.TB, dir, name string, variant int) []byte {
	t.Helper()
	llvmtest.Need(t, clangName)
	b, err := compileC(dir, name, variant)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compileC(dir, name string, variant int) ([]byte, error) {
	cc, err := exec.LookPath(clangName)
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(hostSources[variant].src), 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(src)
	args := append(strings.Fields(hostSources[variant].flags), "-c", src, "-o", filepath.Join(dir, name))
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s %q: %v\n%s", cc, args, err, out)
	}
	return os.ReadFile(filepath.Join(dir, name))
}

// hostObjects are the compiled host objects, built once for all tests.
var hostObjects = sync.OnceValues(func() ([][]byte, error) {
	dir, err := os.MkdirTemp("", "offload-host-objs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var objs [][]byte
	for i := range hostSources {
		b, err := compileC(dir, fmt.Sprintf("h%d.o", i), i)
		if err != nil {
			return nil, err
		}
		objs = append(objs, b)
	}
	return objs, nil
})

func getHostObjects(t *testing.T) [][]byte {
	llvmtest.Need(t, clangName)
	objs, err := hostObjects()
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// secInfo is what a test compares of an ELF section.
type secInfo struct {
	name       string
	typ        elf.SectionType
	flags      elf.SectionFlag
	align      uint64
	data       string
	link, info uint32
}

func sections(t *testing.T, b []byte) []secInfo {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a valid ELF file: %v", err)
	}
	var out []secInfo
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NULL {
			continue
		}
		var data []byte
		if s.Type != elf.SHT_NOBITS {
			if data, err = s.Data(); err != nil {
				t.Fatalf("section %s: %v", s.Name, err)
			}
		}
		out = append(out, secInfo{s.Name, s.Type, s.Flags, s.Addralign, string(data), s.Link, s.Info})
	}
	return out
}

// split separates bundle sections from the others; string tables, whose
// layout a rewriter may choose, are left out of the others.
func split(secs []secInfo) (bundles, rest []secInfo) {
	for _, s := range secs {
		switch {
		case strings.HasPrefix(s.name, bundleMagic):
			bundles = append(bundles, s)
		case s.typ == elf.SHT_STRTAB:
		default:
			s.link, s.info = 0, 0 // indices shift when sections are added or removed
			if s.typ == elf.SHT_SYMTAB {
				s.data = "" // compared through symbols()
			}
			rest = append(rest, s)
		}
	}
	return bundles, rest
}

type symInfo struct {
	name, section string
	value, size   uint64
	info          byte
}

func symbols(t *testing.T, b []byte) []symInfo {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var out []symInfo
	for _, s := range syms {
		sec := fmt.Sprint(s.Section)
		if int(s.Section) > 0 && int(s.Section) < len(f.Sections) {
			sec = f.Sections[s.Section].Name
		}
		out = append(out, symInfo{s.Name, sec, s.Value, s.Size, s.Info})
	}
	return out
}

// sameObjectContent checks that got has want's sections (other than
// bundles and string tables) and symbols.
func sameObjectContent(t *testing.T, what string, want, got []byte) {
	t.Helper()
	_, w := split(sections(t, want))
	_, g := split(sections(t, got))
	if fmt.Sprint(w) != fmt.Sprint(g) {
		t.Errorf("%s: sections differ\nwant %v\ngot  %v", what, names(w), names(g))
	}
	if ws, gs := symbols(t, want), symbols(t, got); fmt.Sprint(ws) != fmt.Sprint(gs) {
		t.Errorf("%s: symbols differ\nwant %v\ngot  %v", what, ws, gs)
	}
}

func names(s []secInfo) []string {
	var n []string
	for _, x := range s {
		n = append(n, fmt.Sprintf("%s(%v,%v,%d,%dB)", x.name, x.typ, x.flags, x.align, len(x.data)))
	}
	return n
}

// readelfClean runs llvm-readelf on a file: it must not warn.
func readelfClean(t *testing.T, path string) {
	t.Helper()
	re := llvmtest.Tool(t, readelfName)
	out, err := exec.Command(re, "-S", "-s", "-r", "-h", path).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("warning")) || bytes.Contains(out, []byte("error")) {
		t.Errorf("llvm-readelf %s: %v\n%s", path, err, out)
	}
}

// TestObjectCrossCheck bundles random device payloads into real host
// objects with both tools (-type=o): the bundle sections must be LLVM's
// (names, order, type, flags, alignment, contents), the rest of the object
// unchanged; each tool must list and unbundle the other's output.
func TestObjectCrossCheck(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	objs := getHostObjects(t)
	for i := 0; i < 40; i++ {
		seed := uint64(i)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			objectCase(t, l, objs, seed)
		})
	}
}

func objectCase(t *testing.T, l tool, objs [][]byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x0b1ec7))
	dir := t.TempDir()
	var ts []target
	// Unbundling requests every entry: keep sets where no entry suits two
	// requests (LLVM might then give an entry to another request than the
	// one naming it exactly, where ours keeps the exact one).
	for len(ts) < 2 || !hasHost(ts) || ambiguous(ts, ts, false) {
		ts = randTargets(r, 4)
	}
	host := objs[r.IntN(len(objs))]
	payloads := map[string][]byte{}
	var args []string
	for i, tg := range ts {
		data := host
		if tg.kind != "host" {
			data = randPayload(r, false)
			if r.IntN(8) == 0 {
				data = []byte{0} // looks like a host marker to LLVM
			}
		}
		payloads[tg.std] = data
		args = append(args, "-input="+llvmtest.WriteFile(t, dir, fileName(i), data))
	}
	args = append([]string{"-type=o", "-targets=" + raws(ts)}, args...)
	t.Logf("bundle: %q", args)
	lr := run(t, dir, nil, l, append(args, "-output=llvm.o")...)
	or := run(t, dir, nil, ours(), append(args, "-output=ours.o")...)
	if lr.Code != 0 {
		sameError(t, "bundle", lr, or)
		return
	}
	if or.Code != 0 {
		t.Fatalf("LLVM bundled, ours failed: %v", or)
	}
	lb, ob := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.o")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.o"))
	readelfClean(t, filepath.Join(dir, "ours.o"))
	wantB, _ := split(sections(t, lb))
	gotB, _ := split(sections(t, ob))
	if fmt.Sprint(wantB) != fmt.Sprint(gotB) {
		t.Errorf("bundle sections differ\nLLVM %v\nours %v", names(wantB), names(gotB))
	}
	sameObjectContent(t, "ours vs the host object", host, ob)
	listBoth(t, l, dir, "o", "ours.o", stds(ts))
	listBoth(t, l, dir, "o", "llvm.o", stds(ts))

	// Unbundle ours with LLVM and LLVM's with ours: every device output
	// is its input; the host output is the host object without bundles.
	reqs := make([]string, len(ts))
	for i, tg := range ts {
		reqs[i] = tg.std
	}
	for _, pair := range []struct {
		tl        tool
		in, label string
	}{{l, "ours.o", "L"}, {ours(), "llvm.o", "O"}} {
		a := []string{"-unbundle", "-type=o", "-targets=" + strings.Join(reqs, ","), "-input=" + pair.in}
		for i := range ts {
			a = append(a, fmt.Sprintf("-output=%s%d", pair.label, i))
		}
		res := run(t, dir, nil, pair.tl, a...)
		if res.Code != 0 {
			t.Fatalf("%s unbundling %s: %v", pair.tl.name, pair.in, res)
		}
		for i, tg := range ts {
			got := llvmtest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("%s%d", pair.label, i)))
			want := payloads[tg.std]
			if tg.kind == "host" || bytes.Equal(want, []byte{0}) {
				sameObjectContent(t, pair.tl.name+" host output", host, got)
				if b, _ := split(sections(t, got)); len(b) != 0 {
					t.Errorf("%s: host output keeps bundle sections %v", pair.tl.name, names(b))
				}
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s unbundling %s, %s: %s", pair.tl.name, pair.in, tg.std, llvmtest.FirstDiff(want, got))
			}
		}
	}
	readelfClean(t, filepath.Join(dir, "O"+fmt.Sprint(hostIndex(ts))))
}

func hasHost(ts []target) bool { return hostIndex(ts) >= 0 }

func hostIndex(ts []target) int {
	for i, t := range ts {
		if t.kind == "host" {
			return i
		}
	}
	return -1
}

// TestObjectLinks: our bundled object and the host object we unbundle from
// LLVM's bundle both link into a program that runs.
func TestObjectLinks(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	cc := llvmtest.Tool(t, clangName)
	dir := t.TempDir()
	compileHost(t, dir, "host.o", 1)
	llvmtest.WriteFile(t, dir, "dev", []byte("device code"))
	llvmtest.WriteFile(t, dir, "main.c", []byte("int foo(void);\nint main(void) { return foo() == 42 ? 0 : 3; }\n"))
	args := []string{"-type=o", "-targets=" + hostT + "," + g906, "-input=host.o", "-input=dev"}
	if r := run(t, dir, nil, ours(), append(args, "-output=ours.o")...); r.Code != 0 {
		t.Fatalf("ours: %v", r)
	}
	if r := run(t, dir, nil, l, append(args, "-output=llvm.o")...); r.Code != 0 {
		t.Fatalf("LLVM: %v", r)
	}
	if r := run(t, dir, nil, ours(), "-unbundle", "-type=o", "-targets="+hostT, "-input=llvm.o", "-output=host2.o"); r.Code != 0 {
		t.Fatalf("ours unbundle: %v", r)
	}
	for _, obj := range []string{"ours.o", "host2.o"} {
		exe := filepath.Join(dir, obj+".exe")
		out, err := exec.Command(cc, filepath.Join(dir, "main.c"), filepath.Join(dir, obj), "-o", exe).CombinedOutput()
		if err != nil {
			t.Errorf("linking %s: %v\n%s", obj, err, out)
			continue
		}
		out, err = exec.Command(exe).CombinedOutput()
		if err != nil || string(out) != "hello from the host\n" {
			t.Errorf("running the program linked with %s: %v, output %q", obj, err, out)
		}
	}
}

// TestObjectHIPFatBinary: a HIP fat binary (-type=o, host input /dev/null,
// align 4096, as clang runs it) is a binary bundle, byte-identical to LLVM's.
func TestObjectHIPFatBinary(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	objs := getHostObjects(t)
	llvmtest.WriteFile(t, dir, "a.out1", objs[0]) // device code objects are ELF too
	llvmtest.WriteFile(t, dir, "b.out2", []byte("second device image"))
	args := []string{"-type=o", "-bundle-align=4096",
		"-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
		"-input=/dev/null", "-input=a.out1", "-input=b.out2"}
	lr := run(t, dir, nil, l, append(args, "-output=l.hipfb")...)
	or := run(t, dir, nil, ours(), append(args, "-output=o.hipfb")...)
	if lr.Code != 0 || or.Code != 0 {
		t.Fatalf("LLVM %v\nours %v", lr, or)
	}
	got := llvmtest.ReadFile(t, filepath.Join(dir, "o.hipfb"))
	sameBytes(t, "hipfb", llvmtest.ReadFile(t, filepath.Join(dir, "l.hipfb")), got)
	if !bytes.HasPrefix(got, []byte(bundleMagic)) {
		t.Errorf("not a binary bundle")
	}
}

// TestObjectPrintCommands: --### with an object host prints the llvm-objcopy
// command line, as LLVM does (what it then writes differs: LLVM truncates
// the output, docs/provenance.md#print-commands).
func TestObjectPrintCommands(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "host.o", getHostObjects(t)[0])
	llvmtest.WriteFile(t, dir, "dev", []byte("device"))
	args := []string{"-type=o", "-targets=" + hostT + "," + g906, "-input=host.o", "-input=dev", "-output=out.o", "--###"}
	for _, tl := range []tool{l, ours()} {
		r := run(t, dir, nil, tl, args...)
		for _, want := range []string{"llvm-objcopy", `"--add-section=` + bundleMagic + g906 + `=dev"`,
			`"--set-section-flags=` + bundleMagic + hostT + `-=readonly,exclude"`, `"--" "host.o" "out.o"`} {
			if r.Code != 0 || !strings.Contains(r.Stderr, want) {
				t.Errorf("%s --###: want %s in stderr: %v", tl.name, want, r)
			}
		}
	}
}

// TestHostObjectRoundTrip: clang's driver unbundles the host object of a
// -fgpu-rdc compile before linking. Unbundled by ours, the host entry must
// be byte for byte what LLVM's bundler gives (llvm-objcopy lays the
// sections and the string tables out again), for host objects from clang
// and from gcc, and read the same (obj2yaml-22) whichever tool bundled it;
// the bundled objects themselves must be LLVM's bytes too.
func TestHostObjectRoundTrip(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	llvmtest.Need(t, llvmtest.Oracle("obj2yaml"), "gcc")
	dir := t.TempDir()
	dev := llvmtest.WriteFile(t, dir, "dev", []byte("device code"))
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906"
	var hosts []string
	for i := range hostSources {
		hosts = append(hosts, filepath.Join(dir, fmt.Sprintf("h%d.o", i)))
		compileHost(t, dir, filepath.Base(hosts[i]), i)
	}
	gccSrc := llvmtest.WriteFile(t, dir, "g.c", []byte(hostSources[2].src))
	hosts = append(hosts, filepath.Join(dir, "g.o"))
	llvmtest.Run(t, dir, "gcc", "-c", "-O1", gccSrc, "-o", hosts[len(hosts)-1])
	for _, host := range hosts {
		var fats [][]byte
		for _, bundler := range []tool{l, ours()} {
			fat := filepath.Join(dir, "fat.o")
			mustRunTool(t, dir, bundler, "-type=o", targets, "-input="+host, "-input="+dev, "-output="+fat)
			fats = append(fats, llvmtest.ReadFile(t, fat))
			var yaml []string
			var outs [][]byte
			for j, unbundler := range []tool{l, ours()} {
				out := filepath.Join(dir, fmt.Sprintf("host%d.o", j))
				mustRunTool(t, dir, unbundler, "-type=o", "-unbundle", "-targets=host-x86_64-unknown-linux-gnu", "-input="+fat, "-output="+out)
				yaml = append(yaml, llvmtest.Run(t, dir, llvmtest.Oracle("obj2yaml"), out))
				outs = append(outs, llvmtest.ReadFile(t, out))
			}
			if yaml[0] != yaml[1] {
				t.Errorf("host %s bundled by %s: obj2yaml differs after unbundling\nLLVM:\n%s\nours:\n%s", filepath.Base(host), bundler.name, yaml[0], yaml[1])
			}
			if bundler.name == l.name && !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("host %s: unbundled by ours, %s", filepath.Base(host), llvmtest.FirstDiff(outs[0], outs[1]))
			}
		}
		// Bundling too: llvm-objcopy --add-section lays the string
		// tables out with the new names; so do we.
		if !bytes.Equal(fats[0], fats[1]) {
			t.Errorf("host %s: bundled by ours, %s", filepath.Base(host), llvmtest.FirstDiff(fats[0], fats[1]))
		}
	}
}

func mustRunTool(t *testing.T, dir string, tl tool, args ...string) {
	t.Helper()
	if r := run(t, dir, nil, tl, args...); r.Code != 0 {
		t.Fatalf("%s %q: %v", tl.name, args, r)
	}
}
