package ccob

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// These tests use clang-offload-bundler-22 as the oracle.

// runBundler runs LLVM's bundler with only the given extra environment
// (other OFFLOAD_BUNDLER_* settings from the caller's environment are
// dropped) and returns its stderr.
func runBundler(t *testing.T, env []string, args ...string) string {
	t.Helper()
	r := llvmtest.RunResult(t, "", append(llvmtest.BundlerEnv(), env...), llvmtest.NeedBundler(t), args...)
	if r.Code != 0 {
		t.Fatalf("%s %s: %v", llvmtest.Bundler, strings.Join(args, " "), r)
	}
	return r.Stderr
}

// fixture is a set of bundle inputs on disk and LLVM's uncompressed
// bundle of them.
type fixture struct {
	typ      string
	ids      []string
	inputs   []string
	payloads [][]byte
	plain    []byte // LLVM's uncompressed bundle
	dir      string
}

func (f *fixture) args(output string) []string {
	args := []string{"-type=" + f.typ, "-targets=" + strings.Join(f.ids, ","), "-output=" + output}
	for _, in := range f.inputs {
		args = append(args, "-input="+in)
	}
	return args
}

func newFixture(t *testing.T, typ string, payloads [][]byte) *fixture {
	t.Helper()
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx90a:xnack-", "openmp-nvptx64-nvidia-cuda-unknown-sm_80"}[:len(payloads)]
	f := &fixture{typ: typ, ids: ids, payloads: payloads, dir: t.TempDir()}
	for i, p := range payloads {
		f.inputs = append(f.inputs, filepath.Join(f.dir, fmt.Sprintf("in%d", i)))
		if err := os.WriteFile(f.inputs[i], p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(f.dir, "plain")
	runBundler(t, nil, f.args(out)...)
	var err error
	if f.plain, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	return f
}

// llvmCompress has LLVM bundle and compress the fixture.
func (f *fixture) llvmCompress(t *testing.T, version, level int) []byte {
	t.Helper()
	out := filepath.Join(f.dir, fmt.Sprintf("llvm-v%d-l%d", version, level))
	args := append(f.args(out), "-compress")
	if level != 0 {
		args = append(args, fmt.Sprintf("-compression-level=%d", level))
	}
	runBundler(t, []string{fmt.Sprintf("COMPRESSED_BUNDLE_FORMAT_VERSION=%d", version)}, args...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomPayloads(seed uint64, sizes ...int) [][]byte {
	out := make([][]byte, len(sizes))
	for i, n := range sizes {
		out[i] = semiCompressible(seed+uint64(i), n)
	}
	return out
}

func textPayloads(seed uint64, n int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([][]byte, n)
	for i := range out {
		for range 50 + rng.IntN(200) {
			out[i] = fmt.Appendf(out[i], "  %%%d = add i32 %%%d, %d\n", rng.IntN(100), rng.IntN(100), rng.IntN(1000))
		}
	}
	return out
}

func fixtures(t *testing.T) map[string]*fixture {
	return map[string]*fixture{
		"bc":       newFixture(t, "bc", randomPayloads(1, 0, 5000, 70000, 300)),
		"ll":       newFixture(t, "ll", textPayloads(2, 3)),
		"bc-large": newFixture(t, "bc", randomPayloads(3, 0, 6<<20, 6<<20, 1<<20)),
	}
}

// TestLLVMToUs decompresses CCOBs made by LLVM (versions 2 and 3, several
// levels) and compares with LLVM's uncompressed bundle of the same inputs.
func TestLLVMToUs(t *testing.T) {
	llvmtest.NeedBundler(t)
	for name, f := range fixtures(t) {
		for _, version := range []int{2, 3} {
			for _, level := range []int{0, 1, 19} {
				if name == "bc-large" && level == 19 {
					continue // slow in libzstd
				}
				t.Run(fmt.Sprintf("%s-v%d-l%d", name, version, level), func(t *testing.T) {
					c := f.llvmCompress(t, version, level)
					got, h, consumed, err := decompress(c, ReaderOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, f.plain) {
						t.Fatalf("decompressed %d bytes differ from LLVM's %d-byte bundle", len(got), len(f.plain))
					}
					sum := md5.Sum(f.plain)
					want := Header{Version: uint16(version), Method: MethodZstd, TotalSize: uint64(len(c)),
						UncompressedSize: uint64(len(f.plain)), Hash: hashOf(sum[:]), HeaderSize: HeaderSize(uint16(version))}
					if h != want || consumed != int64(len(c)) {
						t.Errorf("header %+v consumed %d, want %+v", h, consumed, want)
					}
				})
			}
		}
	}
}

// TestUsToLLVM compresses LLVM's uncompressed bundles with every method,
// version and a few levels, has LLVM unbundle them back to the inputs
// (checking LLVM's verbose "Hashes match: Yes"), and compares our header
// with LLVM's for the same bundle.
func TestUsToLLVM(t *testing.T) {
	llvmtest.NeedBundler(t)
	for name, f := range fixtures(t) {
		llvmHeaders := map[int]Header{}
		for _, v := range []int{2, 3} {
			h, err := ParseHeader(f.llvmCompress(t, v, 0))
			if err != nil {
				t.Fatal(err)
			}
			llvmHeaders[v] = h
		}
		for _, m := range []Method{MethodZstd, MethodZlib} {
			for _, v := range []uint16{2, 3} {
				for _, lvl := range []int{0, 1, 9} {
					if name == "bc-large" && lvl != 0 {
						continue
					}
					t.Run(fmt.Sprintf("%s-%s-v%d-l%d", name, m, v, lvl), func(t *testing.T) {
						c, h := compress(t, f.plain, WriterOptions{Version: v, Method: m, Level: lvl})
						want := llvmHeaders[int(v)]
						want.TotalSize, h.TotalSize = 0, 0
						want.Method = m // LLVM 22 here writes zstd only
						if h != want {
							t.Errorf("header %+v, LLVM's %+v", h, want)
						}
						path := filepath.Join(t.TempDir(), "ours.ccob")
						if err := os.WriteFile(path, c, 0o644); err != nil {
							t.Fatal(err)
						}
						got, stderr := llvmUnbundle(t, f, path)
						for i := range f.ids {
							if !bytes.Equal(got[i], f.payloads[i]) {
								t.Errorf("LLVM unbundled %s: %d bytes, want %d", f.ids[i], len(got[i]), len(f.payloads[i]))
							}
						}
						if !strings.Contains(stderr, "Hashes match: Yes") ||
							!strings.Contains(stderr, "Decompression method: "+m.String()) {
							t.Errorf("LLVM verbose output:\n%s", stderr)
						}
					})
				}
			}
		}
	}
}

func llvmUnbundle(t *testing.T, f *fixture, path string) ([][]byte, string) {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-unbundle", "-verbose", "-type=" + f.typ, "-input=" + path, "-targets=" + strings.Join(f.ids, ",")}
	outs := make([]string, len(f.ids))
	for i := range f.ids {
		outs[i] = filepath.Join(dir, fmt.Sprintf("out%d", i))
		args = append(args, "-output="+outs[i])
	}
	stderr := runBundler(t, nil, args...)
	got := make([][]byte, len(outs))
	for i, o := range outs {
		b, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = b
	}
	return got, stderr
}

// TestUsToLLVMEmpty: LLVM decompresses our CCOB of an empty bundle (and
// then finds no bundles in it).
func TestUsToLLVMEmpty(t *testing.T) {
	llvmtest.NeedBundler(t)
	for _, m := range []Method{MethodZstd, MethodZlib} {
		c, _ := compress(t, nil, WriterOptions{Method: m})
		path := filepath.Join(t.TempDir(), "empty.ccob")
		if err := os.WriteFile(path, c, 0o644); err != nil {
			t.Fatal(err)
		}
		stderr := runBundler(t, nil, "-list", "-verbose", "-type=bc", "-input="+path)
		if !strings.Contains(stderr, "Hashes match: Yes") {
			t.Errorf("%s: LLVM verbose output:\n%s", m, stderr)
		}
	}
}

// TestLLVMReferenceVector checks docs/provenance.md#ccob against LLVM: its CCOB
// header of the 151-byte bundle, hash bytes b07ed61e84c137b3.
func TestLLVMReferenceVector(t *testing.T) {
	llvmtest.NeedBundler(t)
	f := newFixture(t, "bc", [][]byte{[]byte("HOSTDATA"), []byte("DEV1")})
	if !bytes.Equal(f.plain, refBundle(t)) {
		t.Fatal("LLVM's bundle differs from the reference")
	}
	for v, hexHdr := range map[int]string{3: refHeaderV3, 2: refHeaderV2} {
		c := f.llvmCompress(t, v, 0)
		if want := unhex(t, hexHdr); !bytes.Equal(c[:len(want)], want) {
			t.Errorf("v%d: LLVM header %x, reference %x", v, c[:len(want)], want)
		}
		got, _ := compress(t, f.plain, WriterOptions{Version: uint16(v), Method: MethodZstd})
		hs, sizeOff := HeaderSize(uint16(v)), 12 // where the uncompressed size starts
		if v == 3 {
			sizeOff = 16
		}
		if !bytes.Equal(got[:8], c[:8]) || !bytes.Equal(got[sizeOff:hs], c[sizeOff:hs]) {
			t.Errorf("v%d: our header %x, LLVM's %x (all but the total size must match)", v, got[:hs], c[:hs])
		}
	}
}
