package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Set up once by TestMain.
var (
	offloadBin  string // the offload binary
	fixtureRoot string // where fixtures are built, once each
)

// The LLVM 22 tools the cross-checks use as the oracle.
var oracleTools = []string{"clang++-22", "clang-22", "clang-offload-bundler-22", "llvm-offload-binary-22",
	"llvm-objdump-22", "llvm-objcopy-22", "llvm-ar-22"}

// TestMain builds the offload binary once; every test runs that binary.
func TestMain(m *testing.M) {
	os.Exit(llvmtest.Main(m, func(dir, bin string) error {
		offloadBin, fixtureRoot = bin, filepath.Join(dir, "fixtures")
		return os.Mkdir(fixtureRoot, 0o755)
	}, oracleTools...))
}

// run runs argv in dir with env added to an environment without the
// bundler's variables; TMPDIR points into dir's .tmp, unless env sets it,
// so that temporary files die with the test.
func run(t testing.TB, dir string, env []string, argv ...string) llvmtest.Result {
	t.Helper()
	full := append(llvmtest.BundlerEnv(), env...)
	if !hasTMPDIR(env) {
		tmp := filepath.Join(dir, ".tmp")
		os.MkdirAll(tmp, 0o755)
		full = append(full, "TMPDIR="+tmp)
	}
	return llvmtest.RunResult(t, dir, full, argv[0], argv[1:]...)
}

func hasTMPDIR(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMPDIR=") {
			return true
		}
	}
	return false
}

func mustRun(t testing.TB, dir string, env []string, argv ...string) llvmtest.Result {
	t.Helper()
	r := run(t, dir, env, argv...)
	if r.Code != 0 {
		t.Fatalf("%q failed:\n%v", argv, r)
	}
	return r
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
