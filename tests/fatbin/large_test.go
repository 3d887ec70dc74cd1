package fatbin_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// TestFatbinLargeCubins: fatbinary compresses a cubin of more than
// 10,000,000 bytes even without -g or --compress-all, whatever its bytes
// (a real cubin padded with zeros, or with random bytes that LZ4 makes
// larger); ours does too, byte for byte, up to nvfatbin.MaxCompressed. A
// larger cubin ours stores as it is, streamed: the difference
// docs/nvfatbin.md keeps, cuobjdump reads both.
func TestFatbinLargeCubins(t *testing.T) {
	llvmtest.Need(t, oracleTools...)
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "k.cu", []byte("extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n"))
	llvmtest.Run(t, dir, "nvcc", "-cubin", "-arch=sm_80", src, "-o", filepath.Join(dir, "k.cubin"))
	cubin := llvmtest.ReadFile(t, filepath.Join(dir, "k.cubin"))
	rng := rand.New(rand.NewPCG(12, 27))
	noise := make([]byte, 12_000_000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"10,000,000 bytes: stored", padTo(cubin, nvfatbin.LargeCubin)},
		{"10,000,001 bytes: compressed", padTo(cubin, nvfatbin.LargeCubin+1)},
		{"random tail: compressed, larger", append(append([]byte(nil), cubin...), noise...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := llvmtest.WriteFile(t, dir, "big.cubin", c.data)
			nv, ours := runBoth(t, dir, []string{"-64", "--create", out, "--image=profile=sm_80,file=" + in}, false)
			if !bytes.Equal(nv, ours) {
				t.Errorf("ours (%d bytes) differs from fatbinary's (%d): %s", len(ours), len(nv), llvmtest.FirstDiff(ours, nv))
			}
		})
	}
	in := filepath.Join(dir, "huge.cubin")
	os.WriteFile(in, padTo(cubin, nvfatbin.MaxCompressed+1), 0o644)
	nv, ours := runBoth(t, dir, []string{"-64", "--create", out, "--image=profile=sm_80,file=" + in}, false)
	compressedSize := func(fb []byte) uint32 { return binary.LittleEndian.Uint32(fb[16+16:]) }
	if compressedSize(nv) == 0 || compressedSize(ours) != 0 || len(ours) != 16+64+nvfatbin.MaxCompressed+8 {
		t.Errorf("a cubin over MaxCompressed: fatbinary's compressed size %d (want not 0), ours %d in %d bytes (want stored)",
			compressedSize(nv), compressedSize(ours), len(ours))
	}
	if l := llvmtest.Run(t, filepath.Join(dir, "ours"), "cuobjdump", "-lelf", out); !strings.Contains(l, "sm_80.cubin") {
		t.Errorf("cuobjdump -lelf of ours: %q", l)
	}
}

// padTo is b followed by zeros up to n bytes.
func padTo(b []byte, n int) []byte {
	return append(append([]byte(nil), b...), make([]byte, n-len(b))...)
}
