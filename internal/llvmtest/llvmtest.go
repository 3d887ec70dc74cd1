// Package llvmtest is the plumbing the module's tests share: finding the
// LLVM tools (and compilers) they use as oracles, skipping loudly when one is
// missing, running programs, and building the offload binary once per test
// binary for the integration tests.
//
// It is for tests only; nothing outside *_test.go files imports it.
package llvmtest

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
	"testing"
	"time"
)

// Timeout bounds each run, so that a hung tool fails its test instead of
// the whole test binary.
const Timeout = 2 * time.Minute

// Has reports whether name is on PATH.
func Has(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// RequireEnv names the environment variable that turns the skips of
// missing oracles into failures. make test sets it: there the tools are
// installed first, so a missing one means the cross-checks would not run
// while the suite stays green.
const RequireEnv = "OFFLOAD_REQUIRE_ORACLES"

// Missing ends a test whose oracle (a tool, a library, a compiler) is not
// available: it skips, loudly, or fails when RequireEnv is 1.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, and %s=1 requires every oracle", msg, RequireEnv)
	}
	t.Skipf("!!! SKIPPED: %s !!!", msg)
}

// Tool returns the path of the named program on PATH, or ends the test as
// Missing does.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not on PATH, so this cross-check did not run (scripts/install-deps.sh installs it)", name)
	}
	return p
}

// Bundler is the oracle LLVM's clang-offload-bundler (Oracle). Run by this
// bare name it finds its own release's llvm-objcopy beside it rather than
// an older one in /usr/bin.
var Bundler = Oracle("clang-offload-bundler")

// NeedBundler skips the test, as Tool does, unless Bundler is on PATH, and
// returns its bare name.
func NeedBundler(t testing.TB) string {
	t.Helper()
	Tool(t, Bundler)
	return Bundler
}

// Need skips the test, as Tool does, unless every named program is on PATH.
func Need(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		Tool(t, n)
	}
}

// warnMissing prints a loud line to stderr for each program not on PATH,
// so that skipped cross-checks are seen once, up front.
func warnMissing(names ...string) {
	for _, n := range names {
		if !Has(n) {
			fmt.Fprintf(os.Stderr, "\n!!! %s is not on PATH: the cross-checks that need it are SKIPPED !!!\n\n", n)
		}
	}
}

// Result is what a finished run produced.
type Result struct {
	Stdout, Stderr string
	Code           int // exit status; -1 when a signal ended it (a crash)
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// RunResult runs name with args in dir (the current directory when "") and
// returns what it produced, whatever its exit status. A name without a
// slash is looked up as Tool does, so a missing program skips the test; the
// program gets name, not the path found, as its argv[0]. env, when not nil,
// is the program's whole environment (as exec.Cmd.Env). The test fails
// only when the program cannot be started.
func RunResult(t testing.TB, dir string, env []string, name string, args ...string) Result {
	t.Helper()
	path := name
	if !strings.Contains(name, "/") {
		path = Tool(t, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name // as exec.Command sets it: tools print their argv[0]
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return r
}

// Run runs name as RunResult does, in the inherited environment, and
// returns its stdout; the test fails, showing stderr, unless it exits 0.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	r := RunResult(t, dir, nil, name, args...)
	if r.Code != 0 {
		t.Fatalf("%s %q failed:\n%v", name, args, r)
	}
	return r.Stdout
}

// BundlerEnv is the environment without the variables that change what
// clang-offload-bundler (LLVM's or ours) does, so that a developer's shell
// cannot change a test's outcome.
func BundlerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "OFFLOAD_BUNDLER_") || name == "COMPRESSED_BUNDLE_FORMAT_VERSION" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// ModuleRoot returns the directory of go.mod at or above the current one
// (a test runs in its package's directory).
func ModuleRoot() (string, error) {
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

// Main is the body of TestMain for tests that run the offload binary. It
// builds ./tool/offload into a new temporary directory, lets setup add what
// the tests need there (links, folders), warns once about each of tools
// that is missing, runs the tests and removes the directory. It returns
// the exit code for os.Exit.
func Main(m *testing.M, setup func(dir, offload string) error, tools ...string) int {
	dir, err := os.MkdirTemp("", "offload-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err := buildOffload(dir)
	if err == nil {
		err = setup(dir, bin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	warnMissing(tools...)
	return m.Run()
}

// buildOffload builds ./tool/offload of this module as dir/offload and
// returns that path.
func buildOffload(dir string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "offload")
	build := exec.Command(goTool(), "build", "-o", bin, "./tool/offload")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building ./tool/offload: %v\n%s", err, out)
	}
	return bin, nil
}

// goTool finds the go command: on PATH, else under GOROOT, else where the
// official installer puts it.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if g := os.Getenv("GOROOT"); g != "" {
		return filepath.Join(g, "bin", "go")
	}
	return "/usr/local/go/bin/go"
}

// WriteFile writes data to dir/name and returns that path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ReadFile returns the contents of path.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DirNames lists the names in dir, sorted.
func DirNames(t testing.TB, dir string) []string {
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

// FirstDiff says where two byte strings first differ, for a failure message.
func FirstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %#x (%#02x vs %#02x); lengths %d and %d", i, a[i], b[i], len(a), len(b))
		}
	}
	return fmt.Sprintf("one is a prefix of the other; lengths %d and %d", len(a), len(b))
}
