package fatbin_test

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// input is one file fatbinary can take: a cubin (kind "elf") or PTX.
type input struct {
	kind  string // "elf" or "ptx", as --image3 spells it
	arch  int
	file  string
	elf32 bool // a cubin ptxas made with -m32
}

// The architectures of the cubins: every generation CUDA 11.8 builds for.
var cubinArchs = []int{52, 60, 61, 70, 75, 80, 86, 89, 90}

var (
	corpusOnce   sync.Once
	corpusInputs []input
	corpusErr    error
)

// corpus returns the inputs, made once: three random CUDA sources (seeds
// 1-3), each compiled to PTX by nvcc (compute_52, compute_80) and by
// clang-22 (sm_70), and to cubins by ptxas, 64-bit for every arch of
// cubinArchs from nvcc's PTX and for sm_70, sm_80 and sm_90 from clang's,
// and 32-bit for sm_52 and sm_75.
func corpus(t *testing.T) []input {
	llvmtest.Need(t, oracleTools...)
	corpusOnce.Do(func() {
		dir, err := os.MkdirTemp(filepath.Dir(offloadBin), "corpus-")
		if err != nil {
			corpusErr = err
			return
		}
		corpusInputs, corpusErr = buildCorpus(dir)
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusInputs
}

func buildCorpus(dir string) ([]input, error) {
	var ins []input
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for s := 1; s <= 3; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := compileSource(dir, s)
			mu.Lock()
			ins, errs[s-1] = append(ins, got...), err
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// Sources compiled in parallel: order the inputs by file name, so that
	// the random cases pick the same ones every run.
	slices.SortFunc(ins, func(a, b input) int { return strings.Compare(a.file, b.file) })
	return ins, nil
}

// compileSource writes the source of seed and compiles it.
func compileSource(dir string, seed int) ([]input, error) {
	p := func(name string) string { return filepath.Join(dir, fmt.Sprintf("s%d-%s", seed, name)) }
	src := p("k.cu")
	if err := os.WriteFile(src, []byte(randomSource(rand.New(rand.NewSource(int64(seed))))), 0o644); err != nil {
		return nil, err
	}
	var ins []input
	steps := [][]string{}
	for _, a := range []int{52, 80} {
		f := p(fmt.Sprintf("nvcc-compute_%d.ptx", a))
		steps = append(steps, []string{"nvcc", "-ptx", fmt.Sprintf("-arch=compute_%d", a), src, "-o", f})
		ins = append(ins, input{"ptx", a, f, false})
	}
	clangPTX := p("clang-sm_70.s")
	steps = append(steps, []string{"clang++-22", "--cuda-path=/usr/lib/cuda", "-x", "cuda", "--cuda-device-only",
		"--cuda-gpu-arch=sm_70", "-O2", "-S", src, "-o", clangPTX})
	ins = append(ins, input{"ptx", 70, clangPTX, false})
	for _, a := range cubinArchs {
		f := p(fmt.Sprintf("sm_%d.cubin", a))
		steps = append(steps, []string{"ptxas", fmt.Sprintf("-arch=sm_%d", a), p("nvcc-compute_52.ptx"), "-o", f})
		ins = append(ins, input{"elf", a, f, false})
	}
	for _, a := range []int{70, 80, 90} {
		f := p(fmt.Sprintf("clang-sm_%d.cubin", a))
		steps = append(steps, []string{"ptxas", fmt.Sprintf("-arch=sm_%d", a), clangPTX, "-o", f})
		ins = append(ins, input{"elf", a, f, false})
	}
	for _, a := range []int{52, 75} {
		f := p(fmt.Sprintf("sm_%d-m32.cubin", a))
		steps = append(steps, []string{"ptxas", "-m32", fmt.Sprintf("-arch=sm_%d", a), p("nvcc-compute_52.ptx"), "-o", f})
		ins = append(ins, input{"elf", a, f, true})
	}
	for _, argv := range steps {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	return ins, nil
}

// randomSource is CUDA C++ with one to four kernels of random arithmetic,
// loops, branches, warp shuffles and atomics, so that the PTX and cubins
// of each seed differ in size and content.
func randomSource(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("// a random kernel source; comments like this one reach nvcc's PTX as file names only\n")
	for k := 0; k < 1+rng.Intn(4); k++ {
		fmt.Fprintf(&b, "extern \"C\" __global__ void k%d(float *x, const float *y, int n) {\n", k)
		b.WriteString("  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  float v = x[i];\n")
		for s := 0; s < 1+rng.Intn(12); s++ {
			switch rng.Intn(5) {
			case 0:
				fmt.Fprintf(&b, "  v = v * %d.5f + y[(i + %d) %% n];\n", rng.Intn(100), rng.Intn(1000))
			case 1:
				fmt.Fprintf(&b, "  for (int j = 0; j < %d; j++) v += sinf(v + j);\n", 1+rng.Intn(8))
			case 2:
				fmt.Fprintf(&b, "  if (v > %d.0f) v = sqrtf(v);\n", rng.Intn(50))
			case 3:
				b.WriteString("  v += __shfl_down_sync(0xffffffff, v, 1);\n")
			default:
				fmt.Fprintf(&b, "  atomicAdd(&x[%d %% n], v);\n", rng.Intn(64))
			}
		}
		b.WriteString("  x[i] = v;\n}\n")
	}
	return b.String()
}
