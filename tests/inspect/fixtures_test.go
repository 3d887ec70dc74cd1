package inspect_test

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// hipSource has device code without needing HIP headers.
const hipSource = `#define __device__ __attribute__((device))
__device__ int counter = 7;
__device__ int bump(int x) { return counter += x; }
`

// bundleTargets are the entries of the bundles the bundler makes here.
var bundleTargets = []string{"hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
	"hipv4-amdgcn-amd-amdhsa--gfx1100"}

var fixtureBuilders map[string]func(t *testing.T) string

func init() {
	fixtureBuilders = map[string]func(t *testing.T) string{
		"old.o":            func(t *testing.T) string { return hipObject(t, "old.o") },
		"old-compressed.o": func(t *testing.T) string { return hipObject(t, "old-compressed.o", "--offload-compress") },
		"new.o":            func(t *testing.T) string { return hipObject(t, "new.o", "--offload-new-driver", "-fgpu-rdc") },
		"new-nordc.o":      func(t *testing.T) string { return hipObject(t, "new-nordc.o", "--offload-new-driver") },
		"bundle.bin":       plainBundle,
		"ccob-v2-zstd.bin": func(t *testing.T) string { return zstdCCOB(t, 2) },
		"ccob-v3-zstd.bin": func(t *testing.T) string { return zstdCCOB(t, 3) },
		"ccob-v1-zlib.bin": func(t *testing.T) string { return zlibCCOB(t, 1) },
		"ccob-v2-zlib.bin": func(t *testing.T) string { return zlibCCOB(t, 2) },
		"ccob-v3-zlib.bin": func(t *testing.T) string { return zlibCCOB(t, 3) },
		"text.ll":          textBundle,
		"packages.bin":     packages,
		"nested.bin":       nested,
		"lib.a":            archive,
		"multi-ccob.o":     multiCCOB,
		"coff-pkg.bin":     coffPackage,
		"win-x64.obj":      func(t *testing.T) string { return coffObject(t, "win-x64.obj", "x86_64-pc-windows-msvc") },
		"win-arm64.obj":    func(t *testing.T) string { return coffObject(t, "win-arm64.obj", "aarch64-pc-windows-msvc") },
	}
}

// listed is every fixture the inspect cross-check walks.
var listed = []string{"old.o", "old-compressed.o", "new.o", "new-nordc.o", "bundle.bin", "ccob-v2-zstd.bin",
	"ccob-v3-zstd.bin", "ccob-v1-zlib.bin", "ccob-v2-zlib.bin", "ccob-v3-zlib.bin", "text.ll", "packages.bin",
	"nested.bin", "lib.a", "multi-ccob.o", "win-x64.obj", "win-arm64.obj"}

func hipObject(t *testing.T, name string, extra ...string) string {
	clang := llvmtest.Tool(t, "clang++-22")
	dir := filepath.Join(fixtureRoot, name+".d")
	os.MkdirAll(dir, 0o755)
	llvmtest.WriteFile(t, dir, "k.hip", []byte(hipSource))
	args := append([]string{clang, "-cuid=fixed", "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+",
		"-nogpuinc", "-nogpulib", "-c", "k.hip", "-o", filepath.Join(fixtureRoot, name)}, extra...)
	mustRun(t, dir, nil, args...)
	return filepath.Join(fixtureRoot, name)
}

// randomInputs writes one seeded random payload per bundle target.
func randomInputs(t *testing.T, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	var paths []string
	for i := range bundleTargets {
		data := make([]byte, 1+r.IntN(6000))
		for k := range data {
			data[k] = byte(r.IntN(16)) // compressible
		}
		paths = append(paths, llvmtest.WriteFile(t, fixtureRoot, fmt.Sprintf("in%d-%d.co", seed, i), data))
	}
	return paths
}

// bundleWith runs clang-offload-bundler-22 on the random inputs.
func bundleWith(t *testing.T, out string, env []string, extra ...string) string {
	bundler := llvmtest.Tool(t, "clang-offload-bundler-22")
	args := []string{bundler, "-type=o", "-targets=" + strings.Join(bundleTargets, ","), "-output=" + out}
	for _, in := range randomInputs(t, 1) {
		args = append(args, "-input="+in)
	}
	mustRun(t, fixtureRoot, env, append(args, extra...)...)
	return out
}

func plainBundle(t *testing.T) string {
	return bundleWith(t, filepath.Join(fixtureRoot, "bundle.bin"), nil, "-bundle-align=4096")
}

func zstdCCOB(t *testing.T, version int) string {
	out := filepath.Join(fixtureRoot, fmt.Sprintf("ccob-v%d-zstd.bin", version))
	return bundleWith(t, out, []string{fmt.Sprintf("COMPRESSED_BUNDLE_FORMAT_VERSION=%d", version)}, "-compress")
}

// zlibCCOB wraps bundle.bin in a zlib CCOB assembled by hand from the
// layout of docs/provenance.md#ccob (LLVM's bundler only writes zstd when it has it):
// "CCOB", u16 version, u16 method 0, sizes, then the first 8 bytes of the
// MD5 of the uncompressed bundle.
func zlibCCOB(t *testing.T, version int) string {
	plain := llvmtest.ReadFile(t, fixture(t, "bundle.bin"))
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, 6)
	zw.Write(plain)
	zw.Close()
	sum := md5.Sum(plain)
	le := binary.LittleEndian
	h := []byte("CCOB")
	h = le.AppendUint16(h, uint16(version))
	h = le.AppendUint16(h, 0)
	switch version {
	case 1:
		h = le.AppendUint32(h, uint32(len(plain)))
	case 2:
		h = le.AppendUint32(h, uint32(24+z.Len()))
		h = le.AppendUint32(h, uint32(len(plain)))
	case 3:
		h = le.AppendUint64(h, uint64(32+z.Len()))
		h = le.AppendUint64(h, uint64(len(plain)))
	}
	h = append(h, sum[:8]...)
	return llvmtest.WriteFile(t, fixtureRoot, fmt.Sprintf("ccob-v%d-zlib.bin", version), append(h, z.Bytes()...))
}

func textBundle(t *testing.T) string {
	bundler := llvmtest.Tool(t, "clang-offload-bundler-22")
	a := llvmtest.WriteFile(t, fixtureRoot, "host.ll", []byte("; host module\ndefine i32 @f() {\n  ret i32 0\n}\n"))
	b := llvmtest.WriteFile(t, fixtureRoot, "dev.ll", []byte("; device module\n@g = global i32 1\n"))
	out := filepath.Join(fixtureRoot, "text.ll")
	mustRun(t, fixtureRoot, nil, bundler, "-type=ll", "-targets=host-x86_64-unknown-linux-gnu,openmp-amdgcn-amd-amdhsa--gfx90a",
		"-input="+a, "-input="+b, "-output="+out)
	return out
}

// packages is two llvm-offload-binary-22 packages stored back to back,
// with images of every kind of target and extension.
func packages(t *testing.T) string {
	llvm := llvmtest.Tool(t, "llvm-offload-binary-22")
	ins := randomInputs(t, 2)
	mustRun(t, fixtureRoot, nil, llvm, "-o", "p1.pkg",
		"--image=file="+ins[0]+",triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip",
		"--image=file="+ins[1]+",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda")
	// A real module: inspect reads the header records of bitcode.
	ll := llvmtest.WriteFile(t, fixtureRoot, "omp-dev.ll", []byte("source_filename = \"dev.c\"\ntarget triple = \"x86_64-unknown-linux-gnu\"\n@g = global i32 1\n"))
	bc := filepath.Join(fixtureRoot, "dev.bc")
	mustRun(t, fixtureRoot, nil, llvmtest.Tool(t, "llvm-as-22"), ll, "-o", bc)
	mustRun(t, fixtureRoot, nil, llvm, "-o", "p2.pkg",
		"--image=file="+bc+",triple=x86_64-unknown-linux-gnu,arch=,kind=openmp")
	all := append(llvmtest.ReadFile(t, filepath.Join(fixtureRoot, "p1.pkg")), llvmtest.ReadFile(t, filepath.Join(fixtureRoot, "p2.pkg"))...)
	return llvmtest.WriteFile(t, fixtureRoot, "packages.bin", all)
}

// nested is an OffloadBinary whose image is a compressed bundle.
func nested(t *testing.T) string {
	llvm := llvmtest.Tool(t, "llvm-offload-binary-22")
	inner := fixture(t, "ccob-v3-zstd.bin")
	out := filepath.Join(fixtureRoot, "nested.bin")
	mustRun(t, fixtureRoot, nil, llvm, "-o", out, "--image=file="+inner+",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip")
	return out
}

func archive(t *testing.T) string {
	ar := llvmtest.Tool(t, "llvm-ar-22")
	out := filepath.Join(fixtureRoot, "lib.a")
	os.Remove(out)
	mustRun(t, fixtureRoot, nil, ar, "rcD", out, fixture(t, "old.o"), fixture(t, "new.o"), fixture(t, "old-compressed.o"))
	return out
}

// multiCCOB links two compressed HIP objects with ld -r, which puts both
// CCOBs, padded, in one .hip_fatbin section (clang-offload-bundler-22 cannot
// list such a section: LLVM PR 182579).
func multiCCOB(t *testing.T) string {
	ld := llvmtest.Tool(t, "ld")
	clang := llvmtest.Tool(t, "clang++-22")
	dir := filepath.Join(fixtureRoot, "multi.d")
	os.MkdirAll(dir, 0o755)
	llvmtest.WriteFile(t, dir, "k2.hip", []byte(strings.ReplaceAll(strings.ReplaceAll(hipSource, "counter", "counter2"), "bump", "bump2")))
	mustRun(t, dir, nil, clang, "-cuid=second", "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx1100", "--offload-compress",
		"-nogpuinc", "-nogpulib", "-c", "k2.hip", "-o", "k2.o")
	out := filepath.Join(fixtureRoot, "multi-ccob.o")
	mustRun(t, dir, nil, ld, "-r", fixture(t, "old-compressed.o"), "k2.o", "-o", out)
	return out
}
