package bundler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/bitcode"
)

// LLVM 23's clang-offload-bundler words some messages otherwise than
// 22.1.8's, which the drop-in follows (docs/compatibility.md, "LLVM 23"):
// three error messages start in lower case, "Uncompressed bundle." lost
// its period, and -verbose compressing or decompressing ends with LLVM's
// timer report. With OFFLOAD_LLVM_ORACLE=23, llvm23Said puts 22's words
// back into LLVM's stderr before the cross-checks compare it with ours;
// TestLLVM23BundlerWording pins that LLVM 23 says each of them, so a
// rewrite that no longer applies fails instead of hiding nothing.
var llvm23Rewrites = []struct{ llvm23, llvm22 string }{
	{": compressed bundle header size too small", ": Compressed bundle header size too small"},
	{": could not decompress embedded file contents: ", ": Could not decompress embedded file contents: "},
	{": unknown compressing method", ": Unknown compressing method"},
	{"Uncompressed bundle\n", "Uncompressed bundle.\n"},
}

// llvm23Said is stderr of LLVM's bundler in 22.1.8's words when the oracle
// is LLVM 23 or later; otherwise stderr as it is.
func llvm23Said(stderr string) string {
	if llvmtest.OracleMajor() < 23 {
		return stderr
	}
	for _, r := range llvm23Rewrites {
		stderr = strings.ReplaceAll(stderr, r.llvm23, r.llvm22)
	}
	return withoutTimerReport(stderr)
}

// withoutTimerReport drops the report of LLVM's "offload bundler" timer
// group, from its first rule line to the blank line after its Total.
func withoutTimerReport(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i := range lines {
		if strings.TrimSpace(lines[i]) != "Timer group for offload bundler" || i == 0 {
			continue
		}
		start, end := i-1, i+1
		for end < len(lines) && !strings.HasSuffix(strings.TrimSpace(lines[end]), "Total") {
			end++
		}
		end++ // the Total line
		if end < len(lines) && strings.TrimSpace(lines[end]) == "" {
			end++
		}
		return strings.Join(lines[:start], "") + withoutTimerReport(strings.Join(lines[min(end, len(lines)):], ""))
	}
	return s
}

// TestLLVM23BundlerWording: LLVM 23 says each of llvm23Rewrites' texts
// where 22.1.8 says the other, and prints the timer report after -verbose
// compression; ours says 22.1.8's. Runs with OFFLOAD_LLVM_ORACLE=23.
func TestLLVM23BundlerWording(t *testing.T) {
	llvmtest.NeedOracleFrom(t, 23)
	l := llvm(t)
	dir := t.TempDir()
	plain := binaryBundle([]rawEntry{{g906, bytes.Repeat([]byte("code "), 30)}}, 1)
	short := ccobFile(3, 1, plain, zstdOf(t, l, dir), -1)[:31]
	method7 := ccobFile(3, 1, plain, zstdOf(t, l, dir), -1)
	method7[6] = 7
	for name, b := range map[string][]byte{
		"plain.bc": plain, "short.bc": short, "method7.bc": method7,
		"notzstd.bc": ccobFile(3, 1, plain, []byte("definitely not a zstd frame"), -1),
	} {
		llvmtest.WriteFile(t, dir, name, b)
	}
	llvmtest.WriteFile(t, dir, "d", []byte("device code\n"))
	cases := []struct {
		args         []string
		llvm23, ours string
	}{
		{[]string{"-type=bc", "-list", "-input=short.bc"}, ": compressed bundle header size too small", ": Compressed bundle header size too small"},
		{[]string{"-type=bc", "-list", "-input=method7.bc"}, ": unknown compressing method", ": Unknown compressing method"},
		{[]string{"-type=bc", "-list", "-input=notzstd.bc"}, ": could not decompress embedded file contents: ", ": Could not decompress embedded file contents: "},
		{[]string{"-type=bc", "-list", "-input=plain.bc", "-verbose"}, "Uncompressed bundle\n", "Uncompressed bundle.\n"},
		{[]string{"-type=bc", "-targets=" + hostT + "-," + g906, "-input=d", "-input=d", "-output=c.bc", "-compress", "-verbose"},
			"Timer group for offload bundler", "Truncated MD5 hash: "},
	}
	for _, c := range cases {
		lr := llvmtest.RunResult(t, dir, llvmtest.BundlerEnv(), l.argv[0], c.args...)
		or := run(t, dir, nil, ours(), c.args...)
		if !strings.Contains(lr.Stderr, c.llvm23) {
			t.Errorf("%q: LLVM %d no longer says %q: %v", c.args, llvmtest.OracleMajor(), c.llvm23, lr)
		}
		if !strings.Contains(or.Stderr, c.ours) || (c.llvm23 != "Timer group for offload bundler" && strings.Contains(or.Stderr, c.llvm23)) {
			t.Errorf("%q: ours says %q; want 22.1.8's %q", c.args, or.Stderr, c.ours)
		}
		if said := llvm23Said(lr.Stderr); strings.Contains(said, "Timer group") || (c.llvm23 != "Timer group for offload bundler" && !strings.Contains(said, c.ours)) {
			t.Errorf("%q: rewritten, LLVM's stderr is %q", c.args, said)
		}
		os.Remove(filepath.Join(dir, "c.bc"))
	}
}

// TestLLVM23IrsymtabVersion4: clang 23 writes version 4 of LLVM's bitcode
// symbol table (irsymtab; 3 in LLVM 9 to 22). lib/bitcode reads it, so a
// device archive of clang-23 bitcode gets the symbol table LLVM 23's
// bundler writes (dev_fn, dev_var), byte for byte: lld picks members by
// it. Before lib/bitcode took version 4, ours wrote an empty one.
func TestLLVM23IrsymtabVersion4(t *testing.T) {
	llvmtest.NeedOracleFrom(t, 23)
	l := llvm(t)
	cc := llvmtest.Tool(t, clangName)
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "dev.c", []byte("int dev_fn(int x) { return x + 1; }\nint dev_var = 3;\n"))
	llvmtest.Run(t, "", cc, "-c", "-emit-llvm", src, "-o", filepath.Join(dir, "dev.bc"))
	bc := llvmtest.ReadFile(t, filepath.Join(dir, "dev.bc"))
	st, err := bitcode.ReadSymtab(bytes.NewReader(bc), int64(len(bc)))
	if err != nil || st.Version != 4 {
		t.Fatalf("clang %d's bitcode: irsymtab %+v, %v; want version 4, read", llvmtest.OracleMajor(), st, err)
	}
	llvmtest.WriteFile(t, dir, "lib.a", arArchive([]arMember{{"dev.o", binaryBundle([]rawEntry{{hostT + "-", []byte("host")}, {g906, bc}}, 1)}}))
	args := []string{"-unbundle", "-type=a", "-targets=" + g906, "-input=lib.a"}
	if r := run(t, dir, nil, l, append(args, "-output=l.a")...); r.Code != 0 {
		t.Fatalf("LLVM: %v", r)
	}
	if r := run(t, dir, nil, ours(), append(args, "-output=o.a")...); r.Code != 0 {
		t.Fatalf("ours: %v", r)
	}
	syms := llvmtest.Run(t, dir, llvmtest.Tool(t, llvmtest.Oracle("llvm-nm")), "--print-armap", "o.a")
	if !strings.Contains(syms, "dev_fn in ") || !strings.Contains(syms, "dev_var in ") {
		t.Errorf("our archive's map:\n%s", syms)
	}
	sameBytes(t, "device archive", llvmtest.ReadFile(t, filepath.Join(dir, "l.a")), llvmtest.ReadFile(t, filepath.Join(dir, "o.a")))
}
