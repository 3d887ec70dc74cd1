package bundler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Paths set up once by TestMain.
var (
	binDir     string // holds offload and the clang-offload-bundler link
	offloadBin string // the offload binary
	linkBin    string // binDir/clang-offload-bundler -> offload
)

// The tools of the oracle LLVM (22 unless OFFLOAD_LLVM_ORACLE says) that
// the cross-checks run.
var (
	llvmBundlerName = llvmtest.Oracle("clang-offload-bundler")
	clangName       = llvmtest.Oracle("clang")
	clangxxName     = llvmtest.Oracle("clang++")
	objdumpName     = llvmtest.Oracle("llvm-objdump")
	readelfName     = llvmtest.Oracle("llvm-readelf")
	llvmArName      = llvmtest.Oracle("llvm-ar")
)

// TestMain builds the offload binary once; every test runs that binary.
func TestMain(m *testing.M) {
	os.Exit(llvmtest.Main(m, func(dir, bin string) error {
		binDir, offloadBin = dir, bin
		linkBin = filepath.Join(dir, "clang-offload-bundler")
		return os.Symlink("offload", linkBin)
	}, llvmBundlerName, clangName, clangxxName, objdumpName, readelfName, llvmArName))
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

// llvm returns LLVM 22's bundler, skipping the test when it is missing. It
// is run by its bare name: LLVM's bundler looks for llvm-objcopy beside the
// path in its argv[0], and /usr/bin holds an older llvm-objcopy, while the
// bare name makes it use its own (LLVM 22's) directory.
func llvm(t testing.TB) tool {
	llvmtest.Tool(t, llvmBundlerName)
	return tool{"llvm", []string{llvmBundlerName}}
}

// run runs tl in dir with the extra environment env, and none of the
// variables the bundler reads from the caller's.
func run(t testing.TB, dir string, env []string, tl tool, args ...string) llvmtest.Result {
	t.Helper()
	argv := append(append([]string(nil), tl.argv[1:]...), args...)
	r := llvmtest.RunResult(t, dir, append(llvmtest.BundlerEnv(), env...), tl.argv[0], argv...)
	if tl.name == "llvm" {
		r.Stderr = llvm23Said(r.Stderr) // LLVM 23's words as 22.1.8's (llvm23_test.go)
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

// sameError checks that ours failed as LLVM did: both exit 1, and right
// after "error: " our message says LLVM's text (ours may add context after
// it), so that scripts matching LLVM's messages match ours.
func sameError(t testing.TB, what string, llvmRes, ourRes llvmtest.Result) {
	t.Helper()
	if llvmRes.Code != 1 {
		t.Fatalf("%s: LLVM was expected to fail with exit 1:\n%v", what, llvmRes)
	}
	want := errText(llvmRes.Stderr)
	// The reason libzstd gives is its own; ours comes from another decoder.
	const zstdReason = "Could not decompress embedded file contents"
	if i := strings.Index(want, zstdReason); i >= 0 {
		want = want[:i+len(zstdReason)]
	}
	if want == "" {
		t.Fatalf("%s: LLVM failed without an error line:\n%v", what, llvmRes)
	}
	if ourRes.Code != 1 || !strings.HasPrefix(errText(ourRes.Stderr), want) {
		t.Errorf("%s: want exit 1 and a message starting with %q\nLLVM: %v\nours: %v", what, want, llvmRes, ourRes)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
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

// sameBytes fails unless got equals want.
func sameBytes(t testing.TB, what string, want, got []byte) bool {
	t.Helper()
	if !bytes.Equal(want, got) {
		t.Errorf("%s: bytes differ from LLVM's: %s", what, llvmtest.FirstDiff(want, got))
		return false
	}
	return true
}
