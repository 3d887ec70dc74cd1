package bundle

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// These tests use clang-offload-bundler-22 as the oracle.

// runBundler runs LLVM's bundler, which ignores the OFFLOAD_BUNDLER_*
// variables, and returns its stdout; the test fails unless it exits 0.
func runBundler(t *testing.T, args ...string) []byte {
	t.Helper()
	r := llvmtest.RunResult(t, "", append(os.Environ(), "OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1"), llvmtest.NeedBundler(t), args...)
	if r.Code != 0 {
		t.Fatalf("%s %s: %v", llvmtest.Bundler, strings.Join(args, " "), r)
	}
	return []byte(r.Stdout)
}

// Standardized IDs (as LLVM writes them), chosen so no two conflict.
const hostID = "host-x86_64-unknown-linux-gnu-"

var deviceIDs = []string{
	"hip-amdgcn-amd-amdhsa--gfx906",
	"hip-amdgcn-amd-amdhsa--gfx908",
	"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
	"hip-amdgcn-amd-amdhsa--gfx90a:xnack-",
	"hip-amdgcn-amd-amdhsa--gfx1030",
	"hipv4-amdgcn-amd-amdhsa--gfx942",
	"openmp-nvptx64-nvidia-cuda-unknown-sm_70",
	"openmp-nvptx64-nvidia-cuda-unknown-sm_80",
	"openmp-amdgcn-amd-amdhsa--gfx90a",
	"openmp-x86_64-unknown-linux-gnu-",
}

// randomIDs returns 1-8 IDs in random order, exactly one of them the host.
func randomIDs(rng *rand.Rand) []string {
	n := 1 + rng.IntN(8)
	ids := []string{hostID}
	for _, k := range rng.Perm(len(deviceIDs))[:n-1] {
		ids = append(ids, deviceIDs[k])
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

func randomSize(rng *rand.Rand) int {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return 1 + rng.IntN(16)
	case 2:
		return rng.IntN(300)
	}
	return rng.IntN(9000)
}

// writeInputs stores payloads as files named in<i> and returns their paths.
func writeInputs(t *testing.T, dir string, payloads [][]byte) []string {
	t.Helper()
	paths := make([]string, len(payloads))
	for i, p := range payloads {
		paths[i] = filepath.Join(dir, fmt.Sprintf("in%d", i))
		if err := os.WriteFile(paths[i], p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func bundleArgs(typ string, ids, inputs []string, output string) []string {
	args := []string{"-type=" + typ, "-targets=" + strings.Join(ids, ","), "-output=" + output}
	for _, in := range inputs {
		args = append(args, "-input="+in)
	}
	return args
}

// llvmUnbundle has LLVM unbundle every ID of the bundle at path and
// returns the payloads.
func llvmUnbundle(t *testing.T, typ, path string, ids []string) [][]byte {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-unbundle", "-type=" + typ, "-input=" + path, "-targets=" + strings.Join(ids, ",")}
	outs := make([]string, len(ids))
	for i := range ids {
		outs[i] = filepath.Join(dir, fmt.Sprintf("out%d", i))
		args = append(args, "-output="+outs[i])
	}
	runBundler(t, args...)
	got := make([][]byte, len(ids))
	for i, o := range outs {
		b, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = b
	}
	return got
}

func readers(payloads [][]byte) []io.Reader {
	rs := make([]io.Reader, len(payloads))
	for i, p := range payloads {
		rs[i] = bytes.NewReader(p)
	}
	return rs
}

// TestLLVMBinary checks, for seeded random bundles, that WriteBinary
// matches clang-offload-bundler-22 byte for byte, that ReadBinary recovers
// the inputs from LLVM's output, and that LLVM unbundles our output.
func TestLLVMBinary(t *testing.T) {
	llvmtest.NeedBundler(t)
	aligns := []int64{1, 2, 3, 7, 8, 4096, 4097}
	for c := range 21 {
		align := aligns[c%len(aligns)]
		t.Run(fmt.Sprintf("case%d-align%d", c, align), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(c), 0xb1))
			ids := randomIDs(rng)
			payloads := make([][]byte, len(ids))
			sizes := make([]int64, len(ids))
			for i := range ids {
				payloads[i] = make([]byte, randomSize(rng))
				for j := range payloads[i] {
					payloads[i][j] = byte(rng.Uint32())
				}
				sizes[i] = int64(len(payloads[i]))
			}
			dir := t.TempDir()
			llvmOut := filepath.Join(dir, "llvm.bundle")
			runBundler(t, append(bundleArgs("bc", ids, writeInputs(t, dir, payloads), llvmOut),
				fmt.Sprintf("-bundle-align=%d", align))...)
			want, err := os.ReadFile(llvmOut)
			if err != nil {
				t.Fatal(err)
			}

			var ours bytes.Buffer
			if err := WriteBinary(&ours, ids, sizes, readers(payloads), align); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours.Bytes(), want) {
				t.Fatalf("WriteBinary differs from LLVM (ids %v, sizes %v):\n ours %x\nllvm %x", ids, sizes, head(ours.Bytes()), head(want))
			}

			entries, err := ReadBinary(bytes.NewReader(want), int64(len(want)))
			if err != nil {
				t.Fatal(err)
			}
			offsets, total, _ := Layout(ids, sizes, align)
			if total != int64(len(want)) || len(entries) != len(ids) {
				t.Fatalf("Layout total %d, LLVM %d; %d entries", total, len(want), len(entries))
			}
			for i, e := range entries {
				got, _ := io.ReadAll(e.Open(bytes.NewReader(want)))
				if e.ID != ids[i] || e.Offset != offsets[i] || !bytes.Equal(got, payloads[i]) {
					t.Errorf("entry %d = %+v, want id %s offset %d size %d", i, e, ids[i], offsets[i], sizes[i])
				}
			}

			oursPath := filepath.Join(dir, "ours.bundle")
			if err := os.WriteFile(oursPath, ours.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for i, got := range llvmUnbundle(t, "bc", oursPath, ids) {
				if !bytes.Equal(got, payloads[i]) {
					t.Errorf("LLVM unbundled %s from our bundle: %d bytes, want %d", ids[i], len(got), len(payloads[i]))
				}
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 256)] }

// TestLLVMText does the same for text bundles of types i, ll and s, with
// payloads ending with and without a newline, and empty ones.
func TestLLVMText(t *testing.T) {
	llvmtest.NeedBundler(t)
	cases := []struct {
		name     string
		payloads []string
	}{
		{"trailing-newline", []string{"int host;\n", "int dev;\n"}},
		{"no-trailing-newline", []string{"int host;", "int dev;\nint x;"}},
		{"empty", []string{"", "", "\n"}},
		{"random", nil},
	}
	for _, typ := range []string{"i", "ll", "s"} {
		comment, _ := CommentFor(typ)
		for ci, tc := range cases {
			t.Run(typ+"-"+tc.name, func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(ci), 0x7e))
				payloads := make([][]byte, len(tc.payloads))
				for i, p := range tc.payloads {
					payloads[i] = []byte(p)
				}
				if tc.payloads == nil {
					payloads = make([][]byte, 1+rng.IntN(6))
					for i := range payloads {
						payloads[i] = randomText(rng)
					}
				}
				ids := append([]string{hostID}, deviceIDs[:len(payloads)-1]...)
				rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })

				dir := t.TempDir()
				llvmOut := filepath.Join(dir, "llvm."+typ)
				runBundler(t, bundleArgs(typ, ids, writeInputs(t, dir, payloads), llvmOut)...)
				want, err := os.ReadFile(llvmOut)
				if err != nil {
					t.Fatal(err)
				}
				var ours bytes.Buffer
				if err := WriteText(&ours, comment, ids, readers(payloads)); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(ours.Bytes(), want) {
					t.Fatalf("WriteText differs from LLVM:\n ours %q\nllvm %q", ours.Bytes(), want)
				}
				got, err := ReadText(bytes.NewReader(want), comment)
				if err != nil {
					t.Fatal(err)
				}
				wantEntries := make([]TextEntry, len(ids))
				for i := range ids {
					wantEntries[i] = TextEntry{ids[i], payloads[i]}
				}
				checkEntries(t, got, wantEntries)

				oursPath := filepath.Join(dir, "ours."+typ)
				if err := os.WriteFile(oursPath, ours.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				for i, got := range llvmUnbundle(t, typ, oursPath, ids) {
					if !bytes.Equal(got, payloads[i]) {
						t.Errorf("LLVM unbundled %s from our bundle: %q, want %q", ids[i], got, payloads[i])
					}
				}
			})
		}
	}
}

// randomText returns a few lines of source-like text, maybe without a
// final newline.
func randomText(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(20) {
		for range rng.IntN(60) {
			b = append(b, " abcxyz;#/{}()=+-_0123456789"[rng.IntN(28)])
		}
		b = append(b, '\n')
	}
	if len(b) > 0 && rng.IntN(2) == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// TestLLVMTextOddInputs compares the IDs LLVM lists for hand-made text
// bundles that LLVM's writer never produces with what ReadText returns.
func TestLLVMTextOddInputs(t *testing.T) {
	llvmtest.NeedBundler(t)
	s := func(id string) string { return "\n; __CLANG_OFFLOAD_BUNDLE____START__ " + id + "\n" }
	e := func(id string) string { return "\n; __CLANG_OFFLOAD_BUNDLE____END__ " + id + "\n" }
	const a, b = hostID, "hip-amdgcn-amd-amdhsa--gfx906"
	inputs := map[string]string{
		"garbage-around":       "junk" + s(a) + "x" + e(a) + "mid\n" + s(b) + "y" + e(b) + "tail",
		"start-glued-to-end":   s(a) + "x" + strings.TrimSuffix(e(a), "\n") + s(b) + "y" + e(b),
		"end-line-at-eof":      s(a) + "x" + strings.TrimSuffix(e(a), "\n"),
		"no-leading-newline":   s(a)[1:] + "x" + e(a),
		"other-comment-marker": "\n// __CLANG_OFFLOAD_BUNDLE____START__ " + b + "\n" + s(a) + "x" + e(a),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "in.ll")
			if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			listed := strings.Fields(string(runBundler(t, "-list", "-type=ll", "-input="+path)))
			got, err := ReadText(strings.NewReader(in), ";")
			if len(listed) == 0 {
				if err == nil || len(got) != 0 {
					t.Fatalf("LLVM lists nothing; ReadText = %q, %v", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if strings.Join(ids, ",") != strings.Join(listed, ",") {
				t.Errorf("ReadText ids %v, LLVM lists %v", ids, listed)
			}
		})
	}
}
