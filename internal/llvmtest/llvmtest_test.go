package llvmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A program name no one installs.
const missing = "llvmtest-no-such-tool-9f2c"

func TestRunResultSeparatesStreams(t *testing.T) {
	Need(t, "sh")
	dir := t.TempDir()
	r := RunResult(t, dir, []string{"V=env-value"}, "sh", "-c", `echo "out $V"; pwd; echo err >&2; exit 3`)
	want := Result{Stdout: "out env-value\n" + dir + "\n", Stderr: "err\n", Code: 3}
	if r != want {
		t.Errorf("got %#v\nwant %#v", r, want)
	}
	if r := RunResult(t, dir, nil, "sh", "-c", "kill -9 $$"); r.Code != -1 {
		t.Errorf("killed by a signal: code %d, want -1", r.Code)
	}
}

func TestRunReturnsStdout(t *testing.T) {
	Need(t, "sh")
	if got := Run(t, "", "sh", "-c", "echo hi; echo noise >&2"); got != "hi\n" {
		t.Errorf("got %q, want %q", got, "hi\n")
	}
	// LLVM's tools print their argv[0]; it must be the name as given.
	if got := Run(t, "", "sh", "-c", `echo "$0"`); got != "sh\n" {
		t.Errorf("argv[0] is %q, want %q", got, "sh\n")
	}
}

// A failing command must fail the test that ran it, and a missing tool must
// skip it; both run against a recorder standing in for the test.
func TestRunFailsAndToolSkips(t *testing.T) {
	Need(t, "sh")
	t.Setenv(RequireEnv, "")
	f := runIsolated(t, func(tb testing.TB) { Run(tb, "", "sh", "-c", "echo why >&2; exit 1") })
	if !f.failed || !strings.Contains(f.msg, "why") {
		t.Errorf("Run of a command that exits 1: failed=%v, message %q", f.failed, f.msg)
	}
	f = runIsolated(t, func(tb testing.TB) { Tool(tb, missing) })
	if !f.skipped || !strings.Contains(f.msg, missing) || !strings.Contains(f.msg, "SKIPPED") {
		t.Errorf("Tool of a missing program: skipped=%v, message %q", f.skipped, f.msg)
	}
	f = runIsolated(t, func(tb testing.TB) { RunResult(tb, "", nil, missing) })
	if !f.skipped {
		t.Error("RunResult did not skip for a missing program named without a slash")
	}
	if Has(missing) {
		t.Errorf("Has(%q) = true", missing)
	}
}

// Under make test (RequireEnv=1) a missing tool fails the test instead,
// naming the tool.
func TestToolFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	f := runIsolated(t, func(tb testing.TB) { Tool(tb, missing) })
	if !f.failed || f.skipped || !strings.Contains(f.msg, missing) || !strings.Contains(f.msg, RequireEnv) {
		t.Errorf("Tool of a missing program with %s=1: failed=%v skipped=%v, message %q", RequireEnv, f.failed, f.skipped, f.msg)
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "module github.com/rules-offload/rules_offload\n") {
		t.Errorf("%s/go.mod is not this module's", root)
	}
}

func TestBundlerEnv(t *testing.T) {
	t.Setenv("OFFLOAD_BUNDLER_COMPRESS", "1")
	t.Setenv("COMPRESSED_BUNDLE_FORMAT_VERSION", "3")
	t.Setenv("LLVMTEST_KEEP", "yes")
	env := BundlerEnv()
	for _, kv := range env {
		if strings.HasPrefix(kv, "OFFLOAD_BUNDLER_") || strings.HasPrefix(kv, "COMPRESSED_BUNDLE_FORMAT_VERSION=") {
			t.Errorf("BundlerEnv keeps %s", kv)
		}
	}
	if !slices.Contains(env, "LLVMTEST_KEEP=yes") {
		t.Error("BundlerEnv dropped an unrelated variable")
	}
}

func TestFilesAndFirstDiff(t *testing.T) {
	dir := t.TempDir()
	WriteFile(t, dir, "b", []byte("two"))
	p := WriteFile(t, dir, "a", []byte("one"))
	if got := string(ReadFile(t, p)); got != "one" {
		t.Errorf("ReadFile = %q", got)
	}
	if got := DirNames(t, dir); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("DirNames = %q", got)
	}
	for _, c := range []struct{ a, b, want string }{
		{"abc", "abd", "first difference at byte 0x2 (0x63 vs 0x64); lengths 3 and 3"},
		{"ab", "abc", "one is a prefix of the other; lengths 2 and 3"},
	} {
		if got := FirstDiff([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// recorder stands in for a test: it records a failure or a skip and ends
// the goroutine, as testing.T does, without touching the real test.
type recorder struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func runIsolated(t *testing.T, fn func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

// The oracle's names follow OracleEnv, read when the test binary starts
// (this one runs without it, or with it set by the caller).
func TestOracleNames(t *testing.T) {
	want := fmt.Sprintf("clang-offload-bundler-%d", OracleMajor())
	if got := Oracle("clang-offload-bundler"); got != want || Bundler != want {
		t.Errorf("Oracle gives %q and Bundler is %q; want %q", got, Bundler, want)
	}
	if os.Getenv(OracleEnv) == "" && OracleMajor() != 22 {
		t.Errorf("without %s the oracle is LLVM %d, not 22", OracleEnv, OracleMajor())
	}
	for _, v := range []string{"22", "23"} {
		t.Setenv(OracleEnv, v)
		if got := readOracleMajor(); strconv.Itoa(got) != v {
			t.Errorf("%s=%s reads as %d", OracleEnv, v, got)
		}
	}
}
