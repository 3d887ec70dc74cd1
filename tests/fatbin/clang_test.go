package fatbin_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestClangDriverWithOffload compiles CUDA sources with clang-22 twice:
// as installed (NVIDIA's fatbinary) and with -B pointing at offload linked
// as fatbinary, which the driver then runs instead (checked with -###).
// The host objects, which embed the fat binary in .nv_fatbin, must be
// byte-equal, for clang's own command lines: several archs, PTX included
// (--cuda-include-ptx), -g, -O2 and fatbinary options from
// -Xcuda-fatbinary.
func TestClangDriverWithOffload(t *testing.T) {
	llvmtest.Need(t, oracleTools...)
	dir := t.TempDir()
	for i, flags := range [][]string{
		{"--cuda-gpu-arch=sm_70", "--cuda-gpu-arch=sm_80"},
		{"-O2", "--cuda-gpu-arch=sm_52", "--cuda-gpu-arch=sm_90", "--cuda-include-ptx=sm_90"},
		{"-O2", "--cuda-gpu-arch=sm_75", "--cuda-gpu-arch=sm_86", "--cuda-include-ptx=all"},
		{"-g", "--cuda-gpu-arch=sm_61", "--cuda-gpu-arch=sm_89", "--cuda-include-ptx=sm_61"},
		{"-O3", "--cuda-gpu-arch=sm_80", "--cuda-include-ptx=sm_80", "-Xcuda-fatbinary", "--compress-all"},
		{"--cuda-gpu-arch=sm_70", "--cuda-include-ptx=sm_70", "-Xcuda-fatbinary", "--compress=false", "-Xcuda-fatbinary", "--ident=k.cu"},
	} {
		src := llvmtest.WriteFile(t, dir, fmt.Sprintf("k%d.cu", i), []byte(randomSource(rand.New(rand.NewSource(int64(100+i))))))
		args := append([]string{"--cuda-path=/usr/lib/cuda", "-x", "cuda", "-c", src}, flags...)
		plan := llvmtest.RunResult(t, dir, nil, "clang++-22", append([]string{"-B", linkDir, "-###"}, args...)...)
		if !strings.Contains(plan.Stderr, `"`+filepath.Join(linkDir, "fatbinary")+`" "-64" "--create"`) {
			t.Fatalf("%q: clang does not run offload as fatbinary:\n%s", flags, plan.Stderr)
		}
		llvmtest.Run(t, dir, "clang++-22", append(args, "-o", "nv.o")...)
		llvmtest.Run(t, dir, "clang++-22", append([]string{"-B", linkDir}, append(args, "-o", "ours.o")...)...)
		a, b := llvmtest.ReadFile(t, filepath.Join(dir, "nv.o")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.o"))
		if !bytes.Equal(a, b) {
			t.Errorf("%q: the object with offload's fat binary differs from fatbinary's: %s", flags, llvmtest.FirstDiff(b, a))
		}
		if n := len(fatbinSection(t, filepath.Join(dir, "ours.o"))); n < 100 {
			t.Errorf("%q: .nv_fatbin of %d bytes", flags, n)
		}
	}
}

// fatbinSection is the .nv_fatbin section of an object.
func fatbinSection(t *testing.T, path string) []byte {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".nv_fatbin")
	if s == nil {
		t.Fatalf("%s: no .nv_fatbin", path)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
