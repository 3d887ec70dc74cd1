package fatbin_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// cuda13Dir holds what CUDA 13.0's fatbinary wrote, its command lines and
// inputs (lib/nvfatbin's test data; docs/provenance.md). CUDA 13 does not
// install here, so its output is the oracle.
const cuda13Dir = "../../lib/nvfatbin/testdata/cuda13"

// TestFatbinCUDA13CommandLines runs offload fatbin --cuda-version=13.0
// with each of fatbinary 13's 12 command lines (fatbin/COMMANDS.txt, the
// inputs named by their files here). Each output is byte for byte
// fatbinary's, ZSTD frames included (libzstd's level 5, and its optimal
// parser for --compress-mode=size, which lib/zstdexact writes).
func TestFatbinCUDA13CommandLines(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(cuda13Dir)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{
		"k1.sm_80.cubin":    filepath.Join(abs, "cubin/k1.sm_80.cubin"),
		"k1.sm_90.cubin":    filepath.Join(abs, "cubin/k1.sm_90.cubin"),
		"k1.compute_90.ptx": filepath.Join(abs, "ptx/k1.compute_90.ptx"),
	}
	cmds, err := os.ReadFile(filepath.Join(abs, "fatbin/COMMANDS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	identical, n := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(cmds)), "\n") {
		_, cmd, _ := strings.Cut(line, ": ")
		args := []string{"fatbin", "--cuda-version=13.0"}
		var out string
		for _, a := range strings.Fields(cmd)[1:] {
			if v, ok := strings.CutPrefix(a, "--create="); ok {
				out = v
			}
			for name, path := range inputs {
				a = strings.Replace(a, "file="+name, "file="+path, 1)
			}
			args = append(args, a)
		}
		n++
		llvmtest.Run(t, dir, offloadBin, args...)
		ours, err1 := os.ReadFile(filepath.Join(dir, out))
		theirs, err2 := os.ReadFile(filepath.Join(abs, "fatbin", out))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if bytes.Equal(ours, theirs) {
			identical++
			continue
		}
		t.Errorf("%s: not fatbinary's bytes: %s", line, llvmtest.FirstDiff(ours, theirs))
	}
	if n != 12 || identical != n {
		t.Errorf("%d command lines, %d outputs byte for byte fatbinary's; want 12 and all", n, identical)
	}
	t.Logf("%d of %d byte for byte fatbinary 13's", identical, n)
}
