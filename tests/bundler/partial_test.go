package bundler_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestNoPartialOutput makes jobs fail after some outputs would have been
// written (LLVM 22 leaves those behind; the first case checks that it
// does, so the test is not vacuous): ours must leave no output and no
// temporary file, and a file that existed before must be unchanged.
func TestNoPartialOutput(t *testing.T) {
	t.Parallel()
	dir := cliDir(t)
	entries := []rawEntry{{hostT + "-", []byte("HOSTDATA")}, {g906, []byte("DEV1")}, {g908, []byte("DEV2")}}
	llvmtest.WriteFile(t, dir, "b.bc", binaryBundle(entries, 1))
	txt := textBundle("#", entries)
	llvmtest.WriteFile(t, dir, "cut.s", txt[:len(txt)-10]) // the last end marker is cut
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx := newCCOBFixture(t, llvm(t))
	z := append([]byte(nil), fx.zstd3...)
	z[25] ^= 1 // hash mismatch, found only after decompressing
	llvmtest.WriteFile(t, dir, "badhash.bc", z)
	llvmtest.WriteFile(t, dir, "lib.a", arArchive([]arMember{{"m.o", llvmtest.ReadFile(t, filepath.Join(dir, "b.bc"))}}))

	unb := func(in, typ string, targets ...string) []string {
		return []string{"-unbundle", "-type=" + typ, "-targets=" + strings.Join(targets, ","), "-input=" + in}
	}
	cases := []struct {
		name string
		args []string
		outs []string
	}{
		{"second output unwritable", unb("b.bc", "bc", g906, hostT), []string{"o1", "no/such/dir/o2"}},
		{"second output a directory", unb("b.bc", "bc", g906, g908), []string{"o1", "adir"}},
		{"one bundle missing", unb("b.bc", "bc", hostT, g906, "hip-amdgcn-amd-amdhsa--gfx1030"), []string{"o1", "o2", "o3"}},
		{"text end marker cut", unb("cut.s", "s", hostT, g906, g908), []string{"o1", "o2", "o3"}},
		{"hash mismatch", unb("badhash.bc", "bc", hostT, g906), []string{"o1", "o2"}},
		{"archive: second target missing", unb("lib.a", "a", g906, "hip-amdgcn-amd-amdhsa--gfx1030"), []string{"o1", "o2"}},
		{"archive: second output unwritable", unb("lib.a", "a", g906, g908), []string{"o1", "no/such/dir/o2"}},
		{"bundle: last input missing", []string{"-type=bc", "-targets=" + hostT + "," + g906, "-input=h", "-input=missing"}, []string{"o1"}},
		{"bundle: compressed, input is a directory", []string{"-type=bc", "-compress", "-targets=" + hostT + "," + g906, "-input=h", "-input=adir"}, []string{"o1"}},
		{"bundle: marker in a text payload", []string{"-type=s", "-targets=" + hostT + "," + g906, "-input=h", "-input=cut.s"}, []string{"o1"}},
	}
	l := llvm(t)
	for i, c := range cases {
		args := append([]string(nil), c.args...)
		for _, o := range c.outs {
			args = append(args, "-output="+o)
		}
		if i == 0 {
			// LLVM writes o1, then fails on o2.
			lr := run(t, dir, nil, l, args...)
			if lr.Code != 1 || !exists(filepath.Join(dir, "o1")) {
				t.Errorf("expected LLVM to leave o1 behind: %v", lr)
			}
			os.Remove(filepath.Join(dir, "o1"))
		}
		// A stale output from an earlier run must survive untouched.
		llvmtest.WriteFile(t, dir, "o1", []byte("stale"))
		before := llvmtest.DirNames(t, dir)
		r := run(t, dir, nil, ours(), args...)
		if r.Code != 1 {
			t.Errorf("%s: want exit 1: %v", c.name, r)
		}
		if got := llvmtest.ReadFile(t, filepath.Join(dir, "o1")); !bytes.Equal(got, []byte("stale")) {
			t.Errorf("%s: o1 was overwritten with %q", c.name, got)
		}
		if after := llvmtest.DirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("%s: files changed: %v -> %v", c.name, before, after)
		}
		os.Remove(filepath.Join(dir, "o1"))
		before = llvmtest.DirNames(t, dir)
		r = run(t, dir, nil, ours(), args...)
		if after := llvmtest.DirNames(t, dir); r.Code != 1 || strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("%s (no stale output): exit %d, files %v -> %v", c.name, r.Code, before, after)
		}
	}
}

// TestRollbackAfterFailedRename fails a job at the last step, when its
// outputs are renamed into place: the second output is an immutable file
// (chattr +i), which no earlier check notices. The first output, already
// renamed over a stale file, must be rolled back to it.
func TestRollbackAfterFailedRename(t *testing.T) {
	dir := cliDir(t)
	entries := []rawEntry{{hostT + "-", []byte("HOSTDATA")}, {g906, []byte("DEV1")}, {g908, []byte("DEV2")}}
	llvmtest.WriteFile(t, dir, "b.bc", binaryBundle(entries, 1))
	llvmtest.WriteFile(t, dir, "o1", []byte("stale"))
	imm := llvmtest.WriteFile(t, dir, "o2", []byte("immutable"))
	if out, err := exec.Command("chattr", "+i", imm).CombinedOutput(); err != nil {
		t.Skipf("!!! SKIPPED: cannot make a file immutable here (chattr +i: %v %s) !!!", err, out)
	}
	defer exec.Command("chattr", "-i", imm).Run()
	before := llvmtest.DirNames(t, dir)
	r := run(t, dir, nil, ours(), "-unbundle", "-type=bc", "-targets="+g906+","+g908, "-input=b.bc", "-output=o1", "-output=o2")
	if r.Code != 1 || !strings.Contains(r.Stderr, "o2") {
		t.Fatalf("want exit 1 naming o2: %v", r)
	}
	if got := llvmtest.ReadFile(t, filepath.Join(dir, "o1")); !bytes.Equal(got, []byte("stale")) {
		t.Errorf("o1 = %q: the renamed output was not rolled back", got)
	}
	if after := llvmtest.DirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("files changed: %v -> %v", before, after)
	}
}
