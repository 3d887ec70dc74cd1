package bundler_test

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

// Paths set up once by TestMain.
var (
	binDir     string // holds offload and the clang-offload-bundler link
	offloadBin string // the offload binary
	linkBin    string // binDir/clang-offload-bundler -> offload
)

// The LLVM 22 tools the cross-checks use as the oracle.
const (
	llvmBundlerName = "clang-offload-bundler-22"
	clangName       = "clang-22"
	clangxxName     = "clang++-22"
	objdumpName     = "llvm-objdump-22"
	readelfName     = "llvm-readelf-22"
	llvmArName      = "llvm-ar-22"
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

// testMain builds the offload binary once; every test runs that binary.
func testMain(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "offload-bundler-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	offloadBin = filepath.Join(dir, "offload")
	linkBin = filepath.Join(dir, "clang-offload-bundler")
	build := exec.Command(goTool(), "build", "-o", offloadBin, "./tool/offload")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ./tool/offload: %v\n%s", err, out)
		return 1
	}
	if err := os.Symlink("offload", linkBin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, n := range []string{llvmBundlerName, clangName, clangxxName, objdumpName, readelfName, llvmArName} {
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

// tool is a program to run: LLVM's bundler, or ours under one of its names.
type tool struct {
	name string
	argv []string
}

// ours is the offload binary invoked through a link named clang-offload-bundler.
func ours() tool { return tool{"ours", []string{linkBin}} }

// oursSub is the same binary invoked as `offload bundler`.
func oursSub() tool { return tool{"offload bundler", []string{offloadBin, "bundler"}} }

// llvm returns LLVM 22's bundler, skipping the test when it is missing.
func llvm(t testing.TB) tool {
	return tool{"llvm", []string{needTool(t, llvmBundlerName)}}
}

// needTool returns the path of an LLVM tool or skips the test, loudly.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("!!! SKIPPED: %s is not installed, so this LLVM cross-check did not run !!!", name)
	}
	return p
}

// result is what a run produced.
type result struct {
	stdout, stderr string
	code           int // -1: killed by a signal (a crash)
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %q\nstderr: %q", r.code, r.stdout, r.stderr)
}

// bundlerEnv is the environment without the variables the bundler reads.
var bundlerEnv = sync.OnceValue(func() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "OFFLOAD_BUNDLER_COMPRESS", "OFFLOAD_BUNDLER_VERBOSE", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL",
			"COMPRESSED_BUNDLE_FORMAT_VERSION", "OFFLOAD_BUNDLER_IGNORE_ENV_VAR":
			continue
		}
		env = append(env, kv)
	}
	return env
})

// run runs tl in dir with the extra environment env.
func run(t testing.TB, dir string, env []string, tl tool, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv := append(append([]string(nil), tl.argv...), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), bundlerEnv()...), env...)
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
		t.Fatalf("%s %q: %v", tl.name, args, err)
	}
	return r
}

// errText is the message after "error: " in a tool's stderr, up to the end
// of that line: what LLVM says, without its program-name prefix.
func errText(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if _, msg, ok := strings.Cut(line, "error: "); ok {
			return strings.TrimSpace(msg)
		}
	}
	return ""
}

// sameError checks that ours failed as LLVM did: both exit 1, and our
// message contains LLVM's (ours may add a file name).
func sameError(t testing.TB, what string, llvmRes, ourRes result) {
	t.Helper()
	if llvmRes.code != 1 {
		t.Fatalf("%s: LLVM was expected to fail with exit 1:\n%v", what, llvmRes)
	}
	want := errText(llvmRes.stderr)
	// The reason libzstd gives is its own; ours comes from another decoder.
	const zstdReason = "Could not decompress embedded file contents"
	if i := strings.Index(want, zstdReason); i >= 0 {
		want = want[:i+len(zstdReason)]
	}
	if want == "" {
		t.Fatalf("%s: LLVM failed without an error line:\n%v", what, llvmRes)
	}
	if ourRes.code != 1 || !strings.Contains(ourRes.stderr, want) {
		t.Errorf("%s: want exit 1 and a message containing %q\nLLVM: %v\nours: %v", what, want, llvmRes, ourRes)
	}
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

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// dirNames lists a directory, sorted.
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

// sortedLines splits s into its non-empty lines, sorted.
func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// firstDiff describes where two byte strings first differ.
func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %#x (%#02x vs %#02x); lengths %d and %d", i, a[i], b[i], len(a), len(b))
		}
	}
	return fmt.Sprintf("one is a prefix of the other; lengths %d and %d", len(a), len(b))
}

// sameBytes fails unless got equals want.
func sameBytes(t testing.TB, what string, want, got []byte) bool {
	t.Helper()
	if !bytes.Equal(want, got) {
		t.Errorf("%s: bytes differ from LLVM's: %s", what, firstDiff(want, got))
		return false
	}
	return true
}
