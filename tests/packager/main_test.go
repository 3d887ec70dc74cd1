package packager_test

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Paths set up once by TestMain.
var (
	offloadBin string // the offload binary
	linkDir    string // holds offload under the packager's LLVM names
)

// The packager names clang drivers look for in -B directories.
var packagerNames = []string{"llvm-offload-binary", "clang-offload-packager"}

// Tools the cross-checks use; a missing one skips the tests that need it.
var oracleTools = []string{"clang-22", "clang++-22", "clang-16", "llvm-offload-binary-22",
	"clang-offload-packager-16", "llvm-objdump-22", "llvm-objcopy-22", "gcc"}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

// testMain builds the offload binary once and links it under the names of
// LLVM's packager; every test runs that binary.
func testMain(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "offload-packager-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	offloadBin = filepath.Join(dir, "offload")
	build := exec.Command(goTool(), "build", "-o", offloadBin, "./tool/offload")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ./tool/offload: %v\n%s", err, out)
		return 1
	}
	linkDir = filepath.Join(dir, "B")
	if err := os.Mkdir(linkDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, n := range packagerNames {
		if err := os.Symlink(offloadBin, filepath.Join(linkDir, n)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	for _, n := range oracleTools {
		if _, err := exec.LookPath(n); err != nil {
			fmt.Fprintf(os.Stderr, "\n!!! %s is not installed: the cross-checks that need it are SKIPPED !!!\n\n", n)
		}
	}
	return m.Run()
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if g := os.Getenv("GOROOT"); g != "" {
		return filepath.Join(g, "bin", "go")
	}
	return "/usr/local/go/bin/go"
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// needTool returns the path of a tool or skips the test, loudly.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("!!! SKIPPED: %s is not installed, so this cross-check did not run !!!", name)
	}
	return p
}

// result is what a run produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// run runs argv in dir with env added to the environment. TMPDIR points
// into dir so that the tools' temporary files die with the test.
func run(t testing.TB, dir string, env []string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	tmp := filepath.Join(dir, ".tmp")
	os.MkdirAll(tmp, 0o755)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%q: %v", argv, err)
	}
	return r
}

// mustRun is run that fails the test unless the command exits 0.
func mustRun(t testing.TB, dir string, env []string, argv ...string) result {
	t.Helper()
	r := run(t, dir, env, argv...)
	if r.code != 0 {
		t.Fatalf("%q failed:\n%v", argv, r)
	}
	return r
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff describes where two byte strings first differ.
func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d (%#02x vs %#02x); sizes %d and %d", i, a[i], b[i], len(a), len(b))
		}
	}
	return fmt.Sprintf("one is a prefix of the other; sizes %d and %d", len(a), len(b))
}

// section is what the tests compare of an ELF section.
type section struct {
	Type  elf.SectionType
	Flags elf.SectionFlag
	Align uint64
	Data  []byte
}

// elfSection reads the named section of an ELF file with the standard
// library's reader, independently of our ELF code.
func elfSection(t testing.TB, path, name string) (section, bool) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf cannot read %s: %v", path, err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		return section{}, false
	}
	data, err := s.Data()
	if err != nil {
		t.Fatalf("%s: section %s: %v", path, name, err)
	}
	return section{Type: s.Type, Flags: s.Flags, Align: s.Addralign, Data: data}, true
}

// objdumpImages runs llvm-objdump-22 --offloading and returns its listing
// without the first line, which names the file.
func objdumpImages(t testing.TB, dir, path string) string {
	t.Helper()
	r := mustRun(t, dir, nil, needTool(t, "llvm-objdump-22"), "--offloading", path)
	out := r.stdout
	if i := strings.Index(out, "OFFLOADING IMAGE"); i >= 0 {
		return out[i:]
	}
	return ""
}
