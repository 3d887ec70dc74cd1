package inspect_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Set up once by TestMain.
var (
	offloadBin  string // the offload binary
	fixtureRoot string // where fixtures are built, once each
)

// The LLVM 22 tools the cross-checks use as the oracle.
var oracleTools = []string{"clang++-22", "clang-offload-bundler-22", "llvm-offload-binary-22",
	"llvm-objdump-22", "llvm-objcopy-22", "llvm-ar-22"}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "offload-inspect-it-")
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
	fixtureRoot = filepath.Join(dir, "fixtures")
	os.Mkdir(fixtureRoot, 0o755)
	for _, n := range oracleTools {
		if _, err := exec.LookPath(n); err != nil {
			fmt.Fprintf(os.Stderr, "\n!!! %s is not installed: the LLVM cross-checks that need it are SKIPPED !!!\n\n", n)
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
		t.Skipf("!!! SKIPPED: %s is not installed, so this LLVM cross-check did not run !!!", name)
	}
	return p
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// bundlerEnv drops the variables that change what the bundler writes.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "OFFLOAD_BUNDLER_") || name == "COMPRESSED_BUNDLE_FORMAT_VERSION" || name == "TMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// run runs argv in dir with env added; TMPDIR points into dir's .tmp so
// that temporary files die with the test.
func run(t testing.TB, dir string, env []string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	if !hasTMPDIR(env) {
		tmp := filepath.Join(dir, ".tmp")
		os.MkdirAll(tmp, 0o755)
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
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

func hasTMPDIR(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMPDIR=") {
			return true
		}
	}
	return false
}

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

func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// fixtures are built on first use and shared by the tests.
var (
	fixMu   sync.Mutex
	fixDone = map[string]string{} // name -> path, or "" after a skip
)

// fixture returns the path of the named fixture, building it (and what it
// needs) on first use.
func fixture(t *testing.T, name string) string {
	t.Helper()
	fixMu.Lock()
	p, ok := fixDone[name]
	fixMu.Unlock()
	if ok && p != "" {
		return p
	}
	build := fixtureBuilders[name]
	if build == nil {
		t.Fatalf("no fixture %q", name)
	}
	p = build(t)
	fixMu.Lock()
	fixDone[name] = p
	fixMu.Unlock()
	return p
}
