package ccob

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func semi(rng *rand.Rand, n int) []byte {
	words := make([][]byte, 4096)
	for i := range words {
		w := make([]byte, 2+rng.IntN(10))
		for j := range w {
			w[j] = byte(rng.Uint32())
		}
		words[i] = w
	}
	b := make([]byte, 0, n+16)
	for len(b) < n {
		if rng.IntN(8) == 0 {
			b = append(b, byte(rng.Uint32()))
		} else {
			b = append(b, words[int(rng.ExpFloat64()*200)%len(words)]...)
		}
	}
	return b[:n]
}

func TestScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := semi(rng, 12<<20)
	var in []byte
	for v := 0; v < 4; v++ {
		c := bytes.Clone(base)
		for k := 0; k < len(c)/4096; k++ {
			p := rng.IntN(len(c) - 64)
			copy(c[p:], semi(rng, 64))
		}
		in = append(in, c...)
	}
	if f := os.Getenv("SCRATCH_IN"); f != "" {
		in, _ = os.ReadFile(f)
	}
	os.WriteFile("/tmp/cc/in.bin", in, 0o644)
	start := time.Now()
	cmd := exec.Command("clang-offload-bundler-22", "-type=bc", "-targets=host-x86_64-unknown-linux-gnu", "-input=/tmp/cc/in.bin", "-output=/tmp/cc/llvm.ccob", "-compress")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	fi, _ := os.Stat("/tmp/cc/llvm.ccob")
	t.Logf("llvm: %d (%.2fx) %v", fi.Size(), float64(len(in))/float64(fi.Size()), time.Since(start))
	for _, lvl := range []int{3, 6, 10} {
		for _, win := range []int{0} {
			f, _ := os.Create("/tmp/cc/ours")
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			start := time.Now()
			h, err := Compress(f, bytes.NewReader(in), int64(len(in)), WriterOptions{Method: MethodZstd, Level: lvl, WindowSize: win})
			f.Close()
			runtime.ReadMemStats(&ms)
			t.Logf("lvl %d win %3d MiB: %d (%.2fx) %v alloc %d MiB err %v", lvl, win>>20, h.TotalSize, float64(len(in))/float64(h.TotalSize), time.Since(start), (ms.TotalAlloc-before)>>20, err)
		}
	}
}
