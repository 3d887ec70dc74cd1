package bitcode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// llvmModules is what LLVM's tools say of a bitcode file's modules: the
// triple and source file llvm-dis-22 prints for each (into out.ll, or
// out.ll.N for several), and the producers llvm-bcanalyzer-22 finds in the
// identification blocks.
func llvmModules(t *testing.T, dir, file string) []Module {
	t.Helper()
	out := filepath.Join(dir, "dis.ll")
	old, _ := filepath.Glob(out + "*")
	for _, f := range old {
		os.Remove(f)
	}
	llvmtest.Run(t, dir, "llvm-dis-22", file, "-o", out)
	outs := []string{out}
	if _, err := os.Stat(out); err != nil {
		outs = nil
		for i := 0; ; i++ {
			name := fmt.Sprintf("%s.%d", out, i)
			if _, err := os.Stat(name); err != nil {
				break
			}
			outs = append(outs, name)
		}
	}
	dump := llvmtest.Run(t, dir, "llvm-bcanalyzer-22", "-dump", file)
	producers := regexp.MustCompile(`(?s)<IDENTIFICATION_BLOCK_ID.*?record string = '([^']*)'`).FindAllStringSubmatch(dump, -1)
	var mods []Module
	for i, o := range outs {
		ir, _ := os.ReadFile(o)
		var m Module
		if s := regexp.MustCompile(`(?m)^target triple = "(.*)"$`).FindSubmatch(ir); s != nil {
			m.Triple = string(s[1])
		}
		if s := regexp.MustCompile(`(?m)^source_filename = "(.*)"$`).FindSubmatch(ir); s != nil {
			m.SourceFilename = string(s[1])
		}
		if i < len(producers) {
			m.Producer = producers[i][1]
		}
		mods = append(mods, m)
	}
	return mods
}

// TestDescribeMatchesLLVM reads every bitcode file of testdata (clang-22
// and clang-16, LTO and ThinLTO, device code, two modules) and of LLVM's
// offload wrapper, and compares each module with what LLVM's tools print.
func TestDescribeMatchesLLVM(t *testing.T) {
	llvmtest.Need(t, "llvm-dis-22", "llvm-bcanalyzer-22", "llvm-offload-wrapper-22")
	dir := t.TempDir()
	files, _ := filepath.Glob("testdata/*.bc")
	os.WriteFile(filepath.Join(dir, "img"), []byte("image"), 0o644)
	for _, triple := range []string{"x86_64-unknown-linux-gnu", "x86_64-pc-windows-msvc"} {
		out := filepath.Join(dir, "wrapper-"+triple+".bc")
		llvmtest.Run(t, dir, "llvm-offload-wrapper-22", "--kind=hip", "--triple="+triple, "-o", out, "img")
		files = append(files, out)
	}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		b, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Describe(bytes.NewReader(b), int64(len(b)))
		if want := llvmModules(t, dir, abs); err != nil || !slices.Equal(mods, want) {
			t.Errorf("%s: Describe gives %+v (%v), LLVM's tools %+v", f, mods, err, want)
		}
		if strings.Contains(f, "two-modules") && len(mods) != 2 {
			t.Errorf("%s: %d modules, want 2", f, len(mods))
		}
	}
}

// TestDescribeHostile checks the string bound and that malformed input
// fails with ErrFormat, not a panic.
func TestDescribeHostile(t *testing.T) {
	long := strings.Repeat("x", 10000)
	vals := make([]uint64, len(long))
	for i := range long {
		vals[i] = uint64(long[i])
	}
	b := newStream().enter(moduleBlockID, 3).unabbrev(moduleTripleCode, vals...).end().done()
	mods, err := Describe(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(mods) != 1 || mods[0].Triple != long[:maxText] {
		t.Fatalf("long triple: %v, %d modules", err, len(mods))
	}
	for cut := 4; cut < len(b); cut += 4 {
		if _, err := Describe(bytes.NewReader(b[:cut]), int64(cut)); err != nil && !errors.Is(err, ErrFormat) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
}

// FuzzDescribe checks that Describe never panics and fails only with this
// package's errors.
func FuzzDescribe(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.bc")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := Describe(bytes.NewReader(b), int64(len(b)))
		if err != nil && !errors.Is(err, ErrNotBitcode) && !errors.Is(err, ErrFormat) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}
