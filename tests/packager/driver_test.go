package packager_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// hipSource has device code: a __device__ variable and a device function
// (no kernel, so no HIP runtime declarations are needed with -nogpuinc).
const hipSource = `#define __device__ __attribute__((device))
__device__ int counter = %d;
__device__ int bump(int x) { return counter += x * %d; }
`

// hipArchSets are the --offload-arch lists compiled: the one the issue
// names, then seeded random picks with at most one target ID per processor
// (clang rejects gfx90a with gfx90a:xnack+).
func hipArchSets(seed uint64, extra int) [][]string {
	sets := [][]string{{"gfx906", "gfx90a:xnack+"}}
	pool := [][]string{
		{"gfx900"}, {"gfx906", "gfx906:xnack-", "gfx906:sramecc+"}, {"gfx908", "gfx908:xnack+"},
		{"gfx90a", "gfx90a:xnack+", "gfx90a:sramecc-:xnack+"}, {"gfx942", "gfx942:xnack-"},
		{"gfx1030"}, {"gfx1100"}, {"gfx1201"},
	}
	r := rand.New(rand.NewPCG(seed, 0))
	for range extra {
		var set []string
		for _, i := range r.Perm(len(pool))[:1+r.IntN(3)] {
			set = append(set, pool[i][r.IntN(len(pool[i]))])
		}
		sets = append(sets, set)
	}
	return sets
}

// packagerCall returns the program of the packager line in clang's -###
// output, and that line.
func packagerCall(t *testing.T, hashOut string) (string, string) {
	t.Helper()
	for _, line := range strings.Split(hashOut, "\n") {
		prog, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		prog = strings.Trim(prog, `"`)
		base := filepath.Base(prog)
		if base == "llvm-offload-binary" || base == "clang-offload-packager" {
			return prog, line
		}
	}
	t.Fatalf("no packager call in the driver's -### output:\n%s", hashOut)
	return "", ""
}

// failingTools returns a -B directory whose packagers exit 1, to prove
// the driver really runs what the -B directory holds.
func failingTools(t *testing.T) string {
	dir := t.TempDir()
	for _, n := range packagerNames {
		script := "#!/bin/sh\necho fake packager >&2\nexit 1\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// clang++-22 with the new offload driver calls llvm-offload-binary from its
// -B directory; the object it then writes must be byte-identical to the
// one made with LLVM's packager, with and without -fgpu-rdc (which embeds
// the package in .llvm.offloading; without it the linker wrapper reads the
// package and writes .hip_fatbin).
func TestHIPNewDriverByteIdentical(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 writes OffloadBinary version 2 (all images in one binary) by default, 22.1.8 version 1; the drop-in writes 22.1.8's, offload packager --format-version=2 LLVM 23's bytes", "TestLLVM23OffloadBinaryVersion2")
	clangxx := llvmtest.Tool(t, llvmtest.Oracle("clang++"))
	const seed = 0x3d1e5
	t.Logf("seed %#x", seed)
	for i, archs := range hipArchSets(seed, 2) {
		for _, rdc := range []bool{true, false} {
			if !rdc && i > 0 {
				continue // one non-rdc case is enough: it takes the longest
			}
			name := fmt.Sprintf("%d-%s-rdc=%v", i, strings.Join(archs, "_"), rdc) // no commas: --image splits on them
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				llvmtest.WriteFile(t, dir, "k.hip", []byte(fmt.Sprintf(hipSource, 7+i, 3+i)))
				args := []string{clangxx, "--offload-new-driver", "-cuid=fixed", "-x", "hip", "-nogpuinc", "-nogpulib", "-c", "k.hip"}
				if rdc {
					args = append(args, "-fgpu-rdc")
				}
				for _, a := range archs {
					args = append(args, "--offload-arch="+a)
				}
				withB := append(append([]string(nil), args[0], "-B", linkDir), args[1:]...)

				prog, line := packagerCall(t, run(t, dir, nil, append(withB, "-###")...).Stderr)
				if prog != filepath.Join(linkDir, "llvm-offload-binary") {
					t.Fatalf("clang++-22 -B %s runs %s, not our llvm-offload-binary:\n%s", linkDir, prog, line)
				}
				if llvmProg, _ := packagerCall(t, run(t, dir, nil, append(args, "-###")...).Stderr); filepath.Dir(llvmProg) == linkDir {
					t.Fatalf("without -B clang++-22 still runs %s", llvmProg)
				}

				mustRun(t, dir, nil, append(args, "-o", "llvm.o")...)
				mustRun(t, dir, nil, append(withB, "-o", "ours.o")...)
				want, got := llvmtest.ReadFile(t, filepath.Join(dir, "llvm.o")), llvmtest.ReadFile(t, filepath.Join(dir, "ours.o"))
				if !bytes.Equal(want, got) {
					t.Fatalf("the object built with our packager differs from LLVM's: %s", llvmtest.FirstDiff(want, got))
				}
				checkDeviceCode(t, dir, "ours.o", archs, rdc)

				bad := append(append([]string(nil), args[0], "-B", failingTools(t)), args[1:]...)
				if r := run(t, dir, nil, append(bad, "-o", "bad.o")...); r.Code == 0 || !strings.Contains(r.Stderr, "fake packager") {
					t.Fatalf("a failing packager in -B did not fail the build, so -B is not what runs:\n%v", r)
				}
			})
		}
	}
}

// checkDeviceCode makes sure the object carries the device code: the
// OffloadBinary images in .llvm.offloading (rdc), or the bundle entries of
// .hip_fatbin, one per --offload-arch.
func checkDeviceCode(t *testing.T, dir, obj string, archs []string, rdc bool) {
	t.Helper()
	if rdc {
		s, ok := elfSection(t, filepath.Join(dir, obj), ".llvm.offloading")
		if !ok || s.Type != 0x6fff4c0b || len(s.Data) == 0 {
			t.Fatalf("%s has no .llvm.offloading section of type SHT_LLVM_OFFLOADING", obj)
		}
		listing := objdumpImages(t, dir, obj)
		for _, a := range archs {
			if !strings.Contains(listing, "arch            "+a+"\n") {
				t.Errorf("llvm-objdump-22 --offloading does not list arch %s:\n%s", a, listing)
			}
		}
		if n := strings.Count(listing, "OFFLOADING IMAGE"); n != len(archs) {
			t.Errorf("llvm-objdump-22 lists %d images, want %d:\n%s", n, len(archs), listing)
		}
		return
	}
	if s, ok := elfSection(t, filepath.Join(dir, obj), ".hip_fatbin"); !ok || len(s.Data) == 0 {
		t.Fatalf("%s has no .hip_fatbin section", obj)
	}
}

// ompSource is a program whose target region reports where it ran and
// computes a sum the host checks.
const ompSource = `#include <omp.h>
#include <stdio.h>
int main(void) {
  long n = %d, sum = 0;
  int initial = -1;
  #pragma omp target map(tofrom: sum, initial)
  {
    initial = omp_is_initial_device();
    for (long i = 1; i <= n; i++) sum += i * %d;
  }
  printf("initial=%%d sum=%%ld\n", initial, sum);
  return 0;
}
`

// ompRunEnv is the environment the OpenMP programs run in: Debian's
// libomptarget and its x86-64 plugin live in /usr/lib/llvm-16/lib, which
// is not on the loader's path, and MANDATORY makes the run fail instead of
// falling back to the host when offloading does not happen.
var ompRunEnv = []string{"LD_LIBRARY_PATH=/usr/lib/llvm-16/lib", "OMP_TARGET_OFFLOAD=MANDATORY"}

func needLibomptarget16(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/llvm-16/lib/libomptarget.rtl.x86_64.so"); err != nil {
		llvmtest.Missing(t, "libomp-16-dev (libomptarget's x86-64 plugin) is not installed")
	}
}

// clang-16 calls clang-offload-packager from its -B directory; with ours
// there, its linker wrapper (LLVM 16) must read our package and the target
// region must run on the offload device and compute the right sum.
func TestOpenMPClang16RunsOffloaded(t *testing.T) {
	clang16 := llvmtest.Tool(t, "clang-16")
	needLibomptarget16(t)
	r := rand.New(rand.NewPCG(0x16, 0))
	n, k := 100+r.IntN(5000), 1+r.IntN(9)
	want := fmt.Sprintf("initial=0 sum=%d\n", k*n*(n+1)/2)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "omp.c", []byte(fmt.Sprintf(ompSource, n, k)))
	args := []string{clang16, "-B", linkDir, "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "omp.c"}

	prog, line := packagerCall(t, run(t, dir, nil, append(args, "-###")...).Stderr)
	if prog != filepath.Join(linkDir, "clang-offload-packager") {
		t.Fatalf("clang-16 -B %s runs %s, not our clang-offload-packager:\n%s", linkDir, prog, line)
	}
	mustRun(t, dir, nil, append(args, "-o", "omp")...)
	got := run(t, dir, ompRunEnv, filepath.Join(dir, "omp"))
	if got.Code != 0 || got.Stdout != want {
		t.Fatalf("the target region did not run offloaded with the right result (want %q):\n%v", want, got)
	}

	bad := append([]string{clang16, "-B", failingTools(t)}, args[3:]...)
	if r := run(t, dir, nil, append(bad, "-o", "bad")...); r.Code == 0 || !strings.Contains(r.Stderr, "fake packager") {
		t.Fatalf("a failing packager in -B did not fail the build, so -B is not what runs:\n%v", r)
	}
}

// LLVM 16's packager and ours write the same images (the string table is
// laid out in another order, so the bytes differ): llvm-objdump-22 lists
// the same, and LLVM 16's packager extracts the same bytes from our file.
func TestClang16PackagerReadsOurs(t *testing.T) {
	p16 := llvmtest.Tool(t, "clang-offload-packager-16")
	r := rand.New(rand.NewPCG(0x1616, 0))
	for i := range 4 {
		dir := t.TempDir()
		var images []string
		for j := range 1 + r.IntN(3) {
			data := make([]byte, 1+r.IntN(3000))
			for k := range data {
				data[k] = byte(r.Uint32())
			}
			ext := []string{"o", "bc", "cubin", "ptx"}[r.IntN(4)]
			file := llvmtest.WriteFile(t, dir, fmt.Sprintf("img%d.%s", j, ext), data)
			target := []string{"triple=x86_64-pc-linux-gnu,arch=", "triple=nvptx64-nvidia-cuda,arch=sm_70",
				"triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+"}[j%3]
			// OpenMP and CUDA have the same value in LLVM 16 and 22; HIP does not (3 vs 4).
			kind := []string{"openmp", "cuda"}[r.IntN(2)]
			images = append(images, "--image=file="+file+","+target+",kind="+kind)
		}
		mustRun(t, dir, nil, append([]string{p16, "-o", "p16.bin"}, images...)...)
		mustRun(t, dir, nil, append([]string{offloadBin, "packager", "-o", "ours.bin"}, images...)...)
		if a, b := objdumpImages(t, dir, "p16.bin"), objdumpImages(t, dir, "ours.bin"); a != b || a == "" {
			t.Fatalf("case %d: llvm-objdump-22 lists LLVM 16's package as\n%s\nand ours as\n%s", i, a, b)
		}
		for j, im := range images {
			file, rest, _ := strings.Cut(strings.TrimPrefix(im, "--image=file="), ",")
			target, _, _ := strings.Cut(rest, ",kind")
			out := fmt.Sprintf("x%d", j)
			mustRun(t, dir, nil, p16, "ours.bin", "--image=file="+out+","+target)
			if !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, out)), llvmtest.ReadFile(t, file)) {
				t.Fatalf("case %d: LLVM 16's packager extracts other bytes for %s from our package", i, target)
			}
		}
	}
}
