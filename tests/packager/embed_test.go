package packager_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// hostSource is a host translation unit that prints a known line.
const hostSource = `#include <stdio.h>
int value(void) { return %d; }
int main(void) { printf("v=%%d\n", value()); return 0; }
`

// bareSource needs no headers, for cross targets without a sysroot.
const bareSource = `int value(void) { return %d; }
int twice(int x) { return value() * x; }
`

// host is a way to compile a host object, and clang-22's way to compile
// the same object with an embedded package.
type host struct {
	name     string
	compiler string   // tool name
	args     []string // flags before -c
	source   string
	runs     bool     // the object links into a program this machine runs
	clang    []string // clang-22 flags giving the same target
}

var hosts = []host{
	{name: "gcc-x86_64", compiler: "gcc", source: hostSource, runs: true},
	{name: "gcc-i386", compiler: "gcc", args: []string{"-m32"}, source: bareSource, clang: []string{"-m32"}},
	{name: "clang-x86_64", compiler: llvmtest.Oracle("clang"), source: hostSource, runs: true},
	{name: "clang-aarch64", compiler: llvmtest.Oracle("clang"), args: []string{"--target=aarch64-linux-gnu"}, source: bareSource,
		clang: []string{"--target=aarch64-linux-gnu"}},
}

// randomPackage writes 1-3 random images and packages them with
// llvm-offload-binary-22; it returns the package and the --image options.
func randomPackage(t *testing.T, r *rand.Rand, dir, name string) (string, []string) {
	t.Helper()
	llvm := llvmtest.Tool(t, llvmtest.Oracle("llvm-offload-binary"))
	targets := []string{"triple=amdgcn-amd-amdhsa,arch=gfx906", "triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+",
		"triple=nvptx64-nvidia-cuda,arch=sm_90", "triple=x86_64-unknown-linux-gnu,arch=", "triple=spirv64-intel,arch=pvc"}
	var images []string
	for i, ti := range r.Perm(len(targets))[:1+r.IntN(3)] {
		data := make([]byte, 1+r.IntN(5000))
		for k := range data {
			data[k] = byte(r.Uint32())
		}
		ext := []string{"o", "bc", "cubin", "ptx", "fatbin", "img"}[r.IntN(6)]
		file := llvmtest.WriteFile(t, dir, fmt.Sprintf("%s-img%d.%s", name, i, ext), data)
		kind := []string{"openmp", "cuda", "hip", "sycl"}[r.IntN(4)]
		images = append(images, "--image=file="+file+","+targets[ti]+",kind="+kind)
	}
	pkg := filepath.Join(dir, name+".pkg")
	mustRun(t, dir, nil, append([]string{llvm, "-o", pkg}, images...)...)
	return pkg, images
}

// The section `offload embed` adds equals, in type, flags, alignment and
// contents, the one clang-22 -fembed-offload-object writes for the same
// package; llvm-objdump-22 lists the same images in both; the rest of the
// object is untouched; and gcc's object still links and runs.
func TestEmbedMatchesClang(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-binary 23 writes OffloadBinary version 2 (all images in one binary) by default, 22.1.8 version 1; the drop-in writes 22.1.8's, offload packager --format-version=2 LLVM 23's bytes", "TestLLVM23OffloadBinaryVersion2")
	clang := llvmtest.Tool(t, llvmtest.Oracle("clang"))
	objdump := llvmtest.Tool(t, llvmtest.Oracle("llvm-objdump"))
	r := rand.New(rand.NewPCG(0xe3bed, 0))
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			cc := llvmtest.Tool(t, h.compiler)
			dir := t.TempDir()
			llvmtest.WriteFile(t, dir, "host.c", []byte(fmt.Sprintf(h.source, 40+r.IntN(50))))
			if res := run(t, dir, nil, append(append([]string{cc}, h.args...), "-c", "host.c", "-o", "host.o")...); res.Code != 0 {
				llvmtest.Missing(t, "%s cannot build for %s here:\n%v", h.compiler, h.name, res)
			}
			for c := range 3 {
				pkgA, images := randomPackage(t, r, dir, fmt.Sprintf("a%d", c))
				pkgs := []string{pkgA}
				if c == 2 { // two packages: clang concatenates them in one section
					pkgB, _ := randomPackage(t, r, dir, fmt.Sprintf("b%d", c))
					pkgs = append(pkgs, pkgB)
				}
				both := llvmtest.WriteFile(t, dir, "both.pkg", append(llvmtest.ReadFile(t, pkgA), catFiles(t, pkgs[1:])...))

				clangArgs := append([]string{clang}, h.clang...)
				for _, p := range pkgs {
					clangArgs = append(clangArgs, "-Xclang", "-fembed-offload-object="+p)
				}
				mustRun(t, dir, nil, append(clangArgs, "-c", "host.c", "-o", "clang.o")...)
				mustRun(t, dir, nil, offloadBin, "embed", "--binary="+both, "host.o", "-o", "ours.o")
				want, ok := elfSection(t, filepath.Join(dir, "clang.o"), ".llvm.offloading")
				if !ok {
					t.Fatal("clang-22 wrote no .llvm.offloading section")
				}
				checkSection(t, dir, "ours.o", want)
				if len(pkgs) == 1 { // the --image form packages as LLVM does
					mustRun(t, dir, nil, append([]string{offloadBin, "embed", "host.o", "-o", "img.o"}, images...)...)
					checkSection(t, dir, "img.o", want)
				}
				if a, b := objdumpImages(t, dir, "clang.o"), objdumpImages(t, dir, "ours.o"); a != b || a == "" {
					t.Fatalf("llvm-objdump-22 --offloading lists\n%s\nfor clang's object and\n%s\nfor ours", a, b)
				}
				if a, b := disassembly(t, dir, objdump, "host.o"), disassembly(t, dir, objdump, "ours.o"); a != b {
					t.Fatalf("embedding changed the code, symbols or relocations:\n%s\nvs\n%s", a, b)
				}
				if h.runs {
					mustRun(t, dir, nil, cc, "ours.o", "-o", "prog")
					if got, wantOut := mustRun(t, dir, nil, filepath.Join(dir, "prog")).Stdout, mustRunOriginal(t, dir, cc); got != wantOut {
						t.Fatalf("the program linked from the embedded object prints %q, the original %q", got, wantOut)
					}
				}
			}
		})
	}
}

func catFiles(t *testing.T, paths []string) []byte {
	var b []byte
	for _, p := range paths {
		b = append(b, llvmtest.ReadFile(t, p)...)
	}
	return b
}

func checkSection(t *testing.T, dir, obj string, want section) {
	t.Helper()
	got, ok := elfSection(t, filepath.Join(dir, obj), ".llvm.offloading")
	switch {
	case !ok:
		t.Fatalf("%s has no .llvm.offloading section", obj)
	case got.Type != want.Type || got.Flags != want.Flags || got.Align != want.Align:
		t.Fatalf("%s: section type %v flags %v align %d; clang writes type %v flags %v align %d",
			obj, got.Type, got.Flags, got.Align, want.Type, want.Flags, want.Align)
	case !bytes.Equal(got.Data, want.Data):
		t.Fatalf("%s: section contents differ from clang's: %s", obj, llvmtest.FirstDiff(want.Data, got.Data))
	}
}

// disassembly is the code, relocations and symbols of an object, without
// the line naming the file.
func disassembly(t *testing.T, dir, objdump, obj string) string {
	t.Helper()
	out := mustRun(t, dir, nil, objdump, "-dr", "-t", obj).Stdout
	_, rest, _ := strings.Cut(out, "file format")
	return rest
}

func mustRunOriginal(t *testing.T, dir, cc string) string {
	t.Helper()
	mustRun(t, dir, nil, cc, "host.o", "-o", "orig")
	return mustRun(t, dir, nil, filepath.Join(dir, "orig")).Stdout
}

// clang-22's linker wrapper finds the images embedded in a gcc (x86-64) or
// clang (aarch64) object and plans their device link. Running that link
// needs GPU device libraries, so --dry-run only prints the commands.
func TestEmbedLinkerWrapper22(t *testing.T) {
	wrapper := llvmtest.Tool(t, llvmtest.Oracle("clang-linker-wrapper"))
	llvm := llvmtest.Tool(t, llvmtest.Oracle("llvm-offload-binary"))
	for _, h := range []host{hosts[0], hosts[3]} {
		t.Run(h.name, func(t *testing.T) {
			cc := llvmtest.Tool(t, h.compiler)
			dir := t.TempDir()
			llvmtest.WriteFile(t, dir, "host.c", []byte(fmt.Sprintf(bareSource, 1)))
			llvmtest.WriteFile(t, dir, "dev.o", []byte("device code"))
			mustRun(t, dir, nil, append(append([]string{cc}, h.args...), "-c", "host.c", "-o", "host.o")...)
			mustRun(t, dir, nil, llvm, "-o", "dev.pkg", "--image=file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp")
			mustRun(t, dir, nil, offloadBin, "embed", "--binary=dev.pkg", "host.o", "-o", "emb.o")
			triple := "x86_64-unknown-linux-gnu"
			if strings.Contains(h.name, "aarch64") {
				triple = "aarch64-unknown-linux-gnu"
			}
			plan := func(obj string) string {
				res := mustRun(t, dir, nil, wrapper, "--dry-run", "--host-triple="+triple, "--linker-path=/usr/bin/ld", "--", obj, "-o", "a.out")
				return res.Stdout + res.Stderr
			}
			const deviceLink = "--target=amdgcn-amd-amdhsa -mcpu=gfx906"
			if out := plan("emb.o"); !strings.Contains(out, deviceLink) {
				t.Fatalf("the linker wrapper plans no device link for the embedded image:\n%s", out)
			}
			if out := plan("host.o"); strings.Contains(out, deviceLink) {
				t.Fatalf("control: the linker wrapper plans a device link without the section:\n%s", out)
			}
		})
	}
}

// A gcc object that carries an OpenMP device image (compiled by clang-16,
// packaged and embedded by us) links with clang-16's linker wrapper into a
// program whose target region runs offloaded; without the section it does
// not. The host side of the target region comes from clang-16
// --offload-host-only, which embeds nothing.
func TestEmbedGccOpenMPRuns(t *testing.T) {
	clang16 := llvmtest.Tool(t, "clang-16")
	gcc := llvmtest.Tool(t, "gcc")
	needLibomptarget16(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(0x9cc, 0))
	n, k := 100+r.IntN(5000), 1+r.IntN(9)
	llvmtest.WriteFile(t, dir, "main.c", []byte(`#include <stdio.h>
long run_target(long n, int *initial);
int main(void) {
  int initial = -1;
  long sum = run_target(`+fmt.Sprint(n)+`, &initial);
  printf("initial=%d sum=%ld\n", initial, sum);
  return 0;
}
`))
	llvmtest.WriteFile(t, dir, "kern.c", []byte(`#include <omp.h>
long run_target(long n, int *initial) {
  long sum = 0;
  int init = -1;
  #pragma omp target map(tofrom: sum, init)
  {
    init = omp_is_initial_device();
    for (long i = 1; i <= n; i++) sum += i * `+fmt.Sprint(k)+`;
  }
  *initial = init;
  return sum;
}
`))
	omp := []string{clang16, "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"}
	mustRun(t, dir, nil, gcc, "-c", "main.c", "-o", "main.o")
	mustRun(t, dir, nil, append(omp, "--offload-host-only", "-c", "kern.c", "-o", "kern-host.o")...)
	mustRun(t, dir, nil, append(omp, "--offload-device-only", "-c", "kern.c", "-o", "kern-dev.o")...)
	if _, ok := elfSection(t, filepath.Join(dir, "kern-host.o"), ".llvm.offloading"); ok {
		t.Fatal("clang-16 --offload-host-only embedded device code; the test would prove nothing")
	}
	mustRun(t, dir, nil, offloadBin, "embed", "--image=file=kern-dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp",
		"main.o", "-o", "main-emb.o")

	want := fmt.Sprintf("initial=0 sum=%d\n", k*n*(n+1)/2)
	mustRun(t, dir, nil, append(omp, "main-emb.o", "kern-host.o", "-o", "prog")...)
	if got := run(t, dir, ompRunEnv, filepath.Join(dir, "prog")); got.Code != 0 || got.Stdout != want {
		t.Fatalf("the target region did not run offloaded with the right result (want %q):\n%v", want, got)
	}
	mustRun(t, dir, nil, append(omp, "main.o", "kern-host.o", "-o", "control")...)
	if got := run(t, dir, ompRunEnv, filepath.Join(dir, "control")); got.Code == 0 {
		t.Fatalf("control: without the embedded image the program still ran offloaded:\n%v", got)
	}
}
