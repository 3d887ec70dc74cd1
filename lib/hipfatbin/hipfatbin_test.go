package hipfatbin

import (
	"bytes"
	"crypto/md5"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// kernelSource is a HIP source that needs no SDK: the launch API clang's
// host half calls is declared here, and the test program defines it.
const kernelSource = `#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
__global__ void KERNEL(float *x, float a) { x[0] *= a; }
`

// runtimeStub stands in for libamdhip64: it prints what registration hands
// it (the wrapper's fields, where the fat binary lies, a hash of its bytes,
// the kernels), so two programs that register the same thing print the same.
const runtimeStub = `#include <stdio.h>
#include <string.h>
extern "C" {
struct Wrapper { int magic; int version; const unsigned char *bin; void *unused; };
void **__hipRegisterFatBinary(const Wrapper *w) {
  unsigned long n, h = 1469598103934665603ul;
  memcpy(&n, w->bin + 24, 8);
  for (int i = 0; i < 4096 + 64; i++) { h ^= w->bin[i]; h *= 1099511628211ul; }
  printf("fatbin magic=%x version=%d page-aligned=%d entries=%lu hash=%lx\n", w->magic, w->version,
         (int)((unsigned long)w->bin % 4096 == 0), n, h);
  static void *handle[8]; static int next; return &handle[next++];
}
void __hipRegisterFunction(void **, const void *, char *name, const char *, int, void *, void *, void *, void *, int *) {
  printf("kernel %s\n", name);
}
void __hipUnregisterFatBinary(void **) {}
int __hipPushCallConfiguration() { return 0; }
int __hipPopCallConfiguration() { return 0; }
int hipLaunchKernel(const void *, ...) { return 0; }
}
int main() { return 0; }
`

// fatBinary returns a clang offload bundle of n device entries as clang
// writes a HIP fat binary (page-aligned entries), with seeded payloads.
func fatBinary(seed byte, n int) []byte {
	var b bytes.Buffer
	le := func(v uint64) {
		b.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32), byte(v >> 40), byte(v >> 48), byte(v >> 56)})
	}
	ids := []string{"host-x86_64-unknown-linux-gnu-"}
	for i := 0; i < n; i++ {
		ids = append(ids, fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx9%02d", i))
	}
	b.WriteString("__CLANG_OFFLOAD_BUNDLE__")
	le(uint64(len(ids)))
	for i, id := range ids {
		size := uint64(0)
		if i > 0 {
			size = 100
		}
		le(uint64(4096 * (i + 1)))
		le(size)
		le(uint64(len(id)))
		b.WriteString(id)
	}
	for i := 1; i < len(ids); i++ {
		b.Write(make([]byte, 4096*(i+1)-b.Len()))
		for j := 0; j < 100; j++ {
			b.WriteByte(seed + byte(i*j))
		}
	}
	return b.Bytes()
}

func TestSymbolName(t *testing.T) {
	// The MD5 of "abc123" begins e9 9a 18 c4 28 cb 38 d5: the low 64 bits,
	// little endian, are 0xd538cb28c4189ae9.
	if got := SymbolName("abc123"); got != "__hip_fatbin_d538cb28c4189ae9" {
		t.Errorf("SymbolName(abc123) = %s", got)
	}
	if got := SymbolName(leadingZeroCUID(t)); len(got) >= len("__hip_fatbin_")+16 {
		t.Errorf("%s: hex with a leading zero kept", got)
	}
}

// leadingZeroCUID finds a cuid whose hash starts with a zero nibble, the
// case where the symbol has fewer than 16 hex digits.
func leadingZeroCUID(t *testing.T) string {
	for i := 0; ; i++ {
		c := fmt.Sprintf("cuid%d", i)
		if s := md5.Sum([]byte(c)); s[7]>>4 == 0 {
			return c
		}
		if i > 1000 {
			t.Fatal("no cuid with a leading zero nibble")
		}
	}
}

// TestSymbolNameMatchesClang compiles the host half of a HIP source without
// a fat binary, with several cuids, and checks the symbol clang leaves
// undefined is the one SymbolName gives.
func TestSymbolNameMatchesClang(t *testing.T) {
	llvmtest.Need(t, "clang++-22")
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "k.hip", []byte(strings.ReplaceAll(kernelSource, "KERNEL", "scale")))
	for _, cuid := range []string{"abc123", "x", "//pkg:lib/src/k.hip", leadingZeroCUID(t)} {
		obj := hostCompile(t, dir, "k.hip", cuid, "")
		if got := undefinedFatbin(t, obj); got != SymbolName(cuid) {
			t.Errorf("cuid %q: clang refers to %s, SymbolName gives %s", cuid, got, SymbolName(cuid))
		}
	}
}

// hostCompile runs clang's host half of src with the cuid, embedding the
// fat binary gpubinary when it is not "", and returns the object's path.
func hostCompile(t *testing.T, dir, src, cuid, gpubinary string, extra ...string) string {
	t.Helper()
	out := filepath.Join(dir, fmt.Sprintf("%s-%x-%t.o", src, md5.Sum([]byte(cuid)), gpubinary != ""))
	args := []string{"-x", "hip", "--offload-arch=gfx906", "-nogpuinc", "-nogpulib", "--offload-host-only", "-c", src, "-cuid=" + cuid, "-o", out}
	if gpubinary != "" {
		args = append(args, "-Xclang", "-fcuda-include-gpubinary", "-Xclang", gpubinary)
	}
	llvmtest.Run(t, dir, "clang++-22", append(args, extra...)...)
	return out
}

func undefinedFatbin(t *testing.T, obj string) string {
	t.Helper()
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "__hip_fatbin_") && s.Section == elf.SHN_UNDEF {
			return s.Name
		}
	}
	return ""
}

// TestProgramMatchesEmbedded links a program of two HIP sources twice: from
// host objects that embed their fat binaries (clang's -c) and from host
// objects without them plus the objects Write makes. Both must register
// the same fat binaries and kernels, and hold the same .hip_fatbin bytes.
func TestProgramMatchesEmbedded(t *testing.T) {
	llvmtest.Need(t, "clang++-22")
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "main.cpp", []byte(runtimeStub))
	embedded := []string{"main.cpp"}
	split := []string{"main.cpp"}
	for i, kernel := range []string{"scale", "shift"} {
		src, fb, cuid := kernel+".hip", kernel+".hipfb", "cuid-of-"+kernel
		llvmtest.WriteFile(t, dir, src, []byte(strings.ReplaceAll(kernelSource, "KERNEL", kernel)))
		llvmtest.WriteFile(t, dir, fb, fatBinary(byte(i*7+1), i+1))
		embedded = append(embedded, hostCompile(t, dir, src, cuid, fb))
		obj := filepath.Join(dir, kernel+".hipfb.o")
		writeObject(t, filepath.Join(dir, fb), obj, Options{CUID: cuid, Machine: elf.EM_X86_64})
		split = append(split, hostCompile(t, dir, src, cuid, ""), obj)
	}
	llvmtest.Run(t, dir, "clang++-22", append(embedded, "-o", "embedded")...)
	llvmtest.Run(t, dir, "clang++-22", append(split, "-o", "split")...)
	want, got := runProgram(t, dir, "embedded"), runProgram(t, dir, "split")
	if want != got || strings.Count(got, "page-aligned=1") != 2 {
		t.Errorf("registration differs:\nembedded:\n%s\nsplit:\n%s", want, got)
	}
	if a, b := section(t, filepath.Join(dir, "embedded")), section(t, filepath.Join(dir, "split")); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf(".hip_fatbin differs: %d vs %d bytes (%s)", len(a), len(b), llvmtest.FirstDiff(a, b))
	}
}

// TestAArch64Link: an AArch64 host object without its fat binary links into
// a shared object with Write's AArch64 object, leaving nothing undefined but
// the runtime.
func TestAArch64Link(t *testing.T) {
	llvmtest.Need(t, "clang++-22", "ld.lld-22")
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "k.hip", []byte(strings.ReplaceAll(kernelSource, "KERNEL", "scale")))
	llvmtest.WriteFile(t, dir, "k.hipfb", fatBinary(3, 2))
	host := hostCompile(t, dir, "k.hip", "arm", "", "--target=aarch64-unknown-linux-gnu")
	writeObject(t, filepath.Join(dir, "k.hipfb"), filepath.Join(dir, "k.hipfb.o"), Options{CUID: "arm", Machine: elf.EM_AARCH64})
	llvmtest.Run(t, dir, "ld.lld-22", "-shared", host, "k.hipfb.o", "-o", "k.so")
	f, err := elf.Open(filepath.Join(dir, "k.so"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.DynamicSymbols()
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "__hip_fatbin") {
			t.Errorf("%s is dynamic (undefined or exported) in the shared object", s.Name)
		}
	}
	if got := section(t, filepath.Join(dir, "k.so")); !bytes.Equal(got, fatBinary(3, 2)) {
		t.Errorf(".hip_fatbin holds %d bytes, not the fat binary", len(got))
	}
}

func writeObject(t *testing.T, fatbin, out string, o Options) {
	t.Helper()
	in, err := os.Open(fatbin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, _ := in.Stat()
	var b bytes.Buffer
	if err := Write(&b, in, fi.Size(), o); err != nil {
		t.Fatal(err)
	}
	llvmtest.WriteFile(t, filepath.Dir(out), filepath.Base(out), b.Bytes())
}

func runProgram(t *testing.T, dir, name string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(dir, name)).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

func section(t *testing.T, path string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(Section)
	if s == nil {
		t.Fatalf("%s: no %s section", path, Section)
	}
	if s.Addralign != align {
		t.Errorf("%s: %s aligned to %d", path, Section, s.Addralign)
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteRefuses(t *testing.T) {
	good := fatBinary(1, 1)
	cases := []struct {
		name string
		data []byte
		o    Options
		is   error
	}{
		{"CUDA fat binary", []byte("\x50\xed\x55\xba\x01\x00\x10\x00"), Options{CUID: "c", Machine: elf.EM_X86_64}, ErrNotHIP},
		{"empty", nil, Options{CUID: "c", Machine: elf.EM_X86_64}, ErrNotHIP},
		{"short", []byte("CC"), Options{CUID: "c", Machine: elf.EM_X86_64}, ErrNotHIP},
		{"no cuid", good, Options{Machine: elf.EM_X86_64}, nil},
		{"machine", good, Options{CUID: "c", Machine: elf.EM_PPC64}, nil},
	}
	for _, c := range cases {
		var b bytes.Buffer
		err := Write(&b, bytes.NewReader(c.data), int64(len(c.data)), c.o)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("%s: err = %v", c.name, err)
		}
		if b.Len() != 0 {
			t.Errorf("%s: %d bytes written before the error", c.name, b.Len())
		}
	}
	var b bytes.Buffer
	if err := Write(&b, bytes.NewReader([]byte("CCOB\x03\x00")), 6, Options{CUID: "c", Machine: elf.EM_X86_64}); err != nil {
		t.Errorf("compressed bundle refused: %v", err)
	}
}

func TestMachine(t *testing.T) {
	for triple, want := range map[string]elf.Machine{
		"x86_64-unknown-linux-gnu":  elf.EM_X86_64,
		"x86_64-pc-linux-gnu":       elf.EM_X86_64,
		"aarch64-unknown-linux-gnu": elf.EM_AARCH64,
	} {
		if got, err := Machine(triple); got != want || err != nil {
			t.Errorf("%s: %v, %v", triple, got, err)
		}
	}
	for _, triple := range []string{"x86_64-pc-windows-msvc", "arm64-apple-darwin", "riscv64-unknown-linux-gnu", ""} {
		if _, err := Machine(triple); err == nil {
			t.Errorf("%s accepted", triple)
		}
	}
}
