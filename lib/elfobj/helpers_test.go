package elfobj

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Test helpers: building objects with the installed compilers and reading
// them back with llvm-readelf-22 / GNU readelf as independent oracles.

// tryTool runs a command in dir and returns its stdout, its stderr and
// whether it failed; objects uses it where no test may be failed.
func tryTool(dir, name string, args ...string) (string, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

const libC = `
__asm__(".pushsection .early_empty,\"\",@progbits\n.popsection\n"
        ".pushsection .early_note,\"\",@progbits\n.ascii \"early\"\n.popsection");
int counter = 1;
static int hidden_state;
int lib_add(int a, int b) { hidden_state += a; return a + b + counter; }
const char *lib_name(void) { return "elfobj"; }
`

const libCXX = `
__asm__(".pushsection .early_empty,\"\",@progbits\n.popsection\n"
        ".pushsection .early_note,\"\",@progbits\n.ascii \"early\"\n.popsection");
template <typename T> inline T twice(T x) { return x + x; }
struct S { virtual int f() { return 3; } virtual ~S() {} };
int lib_cxx(int v) { S s; return twice(v) + (int)twice(2.0) + s.f(); }
extern "C" int lib_add(int a, int b) { return lib_cxx(a) + b; }
`

// mainC calls into the object; the executable exits 0 when the result is
// right (6 for libC, 14 for libCXX).
const mainC = `
int lib_add(int, int);
int main(void) { int r = lib_add(2, 3); return (r == 6 || r == 14) ? 0 : 1; }
`

// testObject is one relocatable object built for the tests.
type testObject struct {
	name   string // e.g. "gcc-x86_64"
	path   string
	native bool   // links and runs on this machine
	cxx    bool   // built from libCXX
	target string // clang target for cross objects ("" = native)
}

var (
	objOnce sync.Once
	objDir  string
	objList []testObject
	objErr  string
)

type objRecipe struct {
	name, compiler string
	args           []string
	native, cxx    bool
	target         string
}

func objRecipes() []objRecipe {
	common := []string{"-c", "-g", "-O1", "-ffunction-sections", "-fdata-sections"}
	cross := func(tr string) objRecipe {
		return objRecipe{name: "clang22-" + tr, compiler: "clang-22", args: append([]string{"--target=" + tr}, common...), target: tr}
	}
	return []objRecipe{
		{name: "gcc-x86_64", compiler: "gcc", args: common, native: true},
		{name: "clang22-x86_64", compiler: "clang-22", args: common, native: true},
		{name: "gxx-x86_64", compiler: "g++", args: common, native: true, cxx: true},
		{name: "clangxx22-x86_64", compiler: "clang++-22", args: common, native: true, cxx: true},
		{name: "gcc-m32", compiler: "gcc", args: append([]string{"-m32"}, common...), target: "i386-linux-gnu"},
		cross("aarch64-linux-gnu"),
		cross("i386-linux-gnu"),
		cross("powerpc64-linux-gnu"),
		cross("powerpc64le-linux-gnu"),
		cross("riscv64-linux-gnu"),
	}
}

// objects builds every object once per test binary run. Objects whose
// compiler is missing are left out with a log line.
func objects(t *testing.T) []testObject {
	t.Helper()
	objOnce.Do(func() {
		dir, err := os.MkdirTemp("", "elfobj-test-")
		if err != nil {
			objErr = err.Error()
			return
		}
		objDir = dir
		os.WriteFile(filepath.Join(dir, "lib.c"), []byte(libC), 0o644)
		os.WriteFile(filepath.Join(dir, "lib.cc"), []byte(libCXX), 0o644)
		os.WriteFile(filepath.Join(dir, "main.c"), []byte(mainC), 0o644)
		for _, r := range objRecipes() {
			if !llvmtest.Has(r.compiler) {
				continue
			}
			src := "lib.c"
			if r.cxx {
				src = "lib.cc"
			}
			out := r.name + ".o"
			if _, stderr, err := tryTool(dir, r.compiler, append(r.args, "-o", out, src)...); err != nil {
				objErr += r.name + ": " + stderr
				continue
			}
			objList = append(objList, testObject{r.name, filepath.Join(dir, out), r.native, r.cxx, r.target})
		}
	})
	if objErr != "" {
		t.Logf("some objects were not built: %s", objErr)
	}
	if len(objList) == 0 {
		llvmtest.Missing(t, "no compiler could build test objects")
	}
	return objList
}

func TestMain(m *testing.M) {
	code := m.Run()
	if objDir != "" {
		os.RemoveAll(objDir)
	}
	os.Exit(code)
}

// secInfo is a section as llvm-readelf-22 -S prints it, without offsets.
type secInfo struct {
	Name, Type, Addr, Size, ES, Flags, Link, Info, Align string
}

// readelfSections parses `llvm-readelf-22 -S -W`.
func readelfSections(t testing.TB, path string) []secInfo {
	t.Helper()
	out := llvmtest.Run(t, "", "llvm-readelf-22", "-S", "-W", path)
	var secs []secInfo
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		end := strings.IndexByte(l, ']')
		if !strings.HasPrefix(l, "[") || end < 0 {
			continue
		}
		m := []string{"", strings.TrimSpace(l[1:end])}
		if _, ok := atoi(m[1]); !ok {
			continue
		}
		f := strings.Fields(l[end+1:])
		// Name Type Address Off Size ES [Flg] Lk Inf Al; the flags column may be empty.
		if len(f) < 9 {
			if len(f) >= 1 && m[1] == "0" {
				secs = append(secs, secInfo{Type: "NULL"})
				continue
			}
			t.Fatalf("cannot parse section line %q", line)
		}
		n := len(f)
		flags := ""
		if n == 10 {
			flags = f[6]
		}
		secs = append(secs, secInfo{Name: f[0], Type: f[1], Addr: f[2], Size: f[4], ES: f[5], Flags: flags,
			Link: f[n-3], Info: f[n-2], Align: f[n-1]})
	}
	return secs
}

// normalisedSymbols renders `llvm-readelf-22 -s` with section indices
// replaced by section names and the entry number dropped.
func normalisedSymbols(t testing.TB, path string) []string {
	t.Helper()
	secs := readelfSections(t, path)
	out := llvmtest.Run(t, "", "llvm-readelf-22", "-s", "-W", path)
	var syms []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		// The visibility column may carry "[<other: 0x60>]".
		k := 6
		if strings.HasPrefix(f[k], "[") {
			for k < len(f)-1 && !strings.HasSuffix(f[k], "]") {
				k++
			}
			k++
		}
		if k >= len(f) {
			t.Fatalf("cannot parse symbol line %q", line)
		}
		ndx := f[k]
		if i, ok := atoi(ndx); ok && i < len(secs) {
			ndx = secs[i].Name
		}
		rest := append(append([]string{}, f[1:k]...), ndx)
		syms = append(syms, strings.Join(append(rest, f[k+1:]...), " "))
	}
	return syms
}

// normalisedRelocs renders `llvm-readelf-22 -r` without section offsets.
func normalisedRelocs(t testing.TB, path string) []string {
	t.Helper()
	out := llvmtest.Run(t, "", "llvm-readelf-22", "-r", "-W", path)
	re := regexp.MustCompile(` at offset 0x[0-9a-f]+`)
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		lines = append(lines, re.ReplaceAllString(line, ""))
	}
	return lines
}

// normalisedGroups renders the section groups by member names.
func normalisedGroups(t testing.TB, path string) []string {
	t.Helper()
	out := llvmtest.Run(t, "", "llvm-readelf-22", "--section-groups", "-W", path)
	re := regexp.MustCompile(`\[\s*\d+\]`)
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimSpace(re.ReplaceAllString(line, "[]")))
	}
	sort.Strings(lines)
	return lines
}

func atoi(s string) (int, bool) {
	n := 0
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// checkReadersQuiet runs llvm-readelf-22 -a and GNU readelf -a and fails on
// any diagnostic that the original file did not also produce.
func checkReadersQuiet(t testing.TB, orig, path string) {
	t.Helper()
	type reader struct {
		name string
		args []string
	}
	readers := []reader{{"llvm-readelf-22", []string{"-a", "-W"}}, {"readelf", []string{"-a", "-W"}}}
	for _, r := range readers {
		if !llvmtest.Has(r.name) {
			t.Logf("SKIPPING %s check: not on PATH", r.name)
			continue
		}
		_, origErr, _ := tryTool("", r.name, append(r.args, orig)...)
		_, stderr, err := tryTool("", r.name, append(r.args, path)...)
		known := map[string]bool{}
		for _, l := range strings.Split(strings.ReplaceAll(origErr, orig, "FILE"), "\n") {
			known[l] = true
		}
		var fresh []string
		for _, l := range strings.Split(strings.ReplaceAll(stderr, path, "FILE"), "\n") {
			if !known[l] {
				fresh = append(fresh, l)
			}
		}
		if err != nil || len(fresh) > 0 {
			t.Errorf("%s -a %s: err=%v, new diagnostics:\n%s", r.name, path, err, strings.Join(fresh, "\n"))
		}
	}
}

func equalLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differ:\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
