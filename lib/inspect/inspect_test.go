package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/ir"
)

const hipSource = `#define __device__ __attribute__((device))
extern "C" __device__ float twice(float x) { return 2 * x; }
__device__ float g;
`

// hipObject compiles a HIP host object for three GPUs with LLVM's own bundler.
func hipObject(t *testing.T, dir string, extra ...string) string {
	if err := os.WriteFile(filepath.Join(dir, "k.hip"), []byte(hipSource), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-cuid=fixed", "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+",
		"--offload-arch=gfx1100", "-nogpuinc", "-nogpulib", "-c", "k.hip", "-o", "k.o"}, extra...)
	llvmtest.Run(t, dir, "clang++-22", args...)
	return filepath.Join(dir, "k.o")
}

// entryIDs collects the bundle entry IDs found anywhere under n.
func entryIDs(n *Node) []string {
	var ids []string
	var walk func(*Node)
	walk = func(n *Node) {
		if n.Entry != nil && n.Entry.ID != "" {
			ids = append(ids, n.Entry.ID)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	sort.Strings(ids)
	return ids
}

// llvmList runs clang-offload-bundler-22 -list and sorts its answer.
func llvmList(t *testing.T, dir, file, typ string) []string {
	out := llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type="+typ, "-list", "-input="+file)
	ids := strings.Fields(out)
	sort.Strings(ids)
	return ids
}

func inspectFile(t *testing.T, path string) *Node {
	t.Helper()
	n, err := File(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHIPObjectAgainstLLVM(t *testing.T) {
	for _, compress := range []bool{false, true} {
		dir := t.TempDir()
		var extra []string
		if compress {
			extra = []string{"--offload-compress"}
		}
		obj := hipObject(t, dir, extra...)
		// The .hip_fatbin section holds the bundle LLVM made; extract it
		// with objcopy and let LLVM list it.
		llvmtest.Run(t, dir, "llvm-objcopy-22", "--dump-section=.hip_fatbin=fatbin", obj)
		want := llvmList(t, dir, "fatbin", "o")
		n := inspectFile(t, obj)
		if n.Failed() {
			t.Fatalf("compress=%v: unexpected error in %+v", compress, dump(n))
		}
		if got := entryIDs(n); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("compress=%v: entries %v, LLVM lists %v", compress, got, want)
		}
		if compress && !strings.Contains(dump(n), `"hash_ok": true`) {
			t.Errorf("compressed fat binary: no verified CCOB in %s", dump(n))
		}
	}
}

func TestCompressedHashMismatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h"), []byte("HOSTDATA"), 0o644)
	os.WriteFile(filepath.Join(dir, "d"), bytes.Repeat([]byte("DEVICE"), 100), 0o644)
	llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=bc", "-compress",
		"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
		"-input=h", "-input=d", "-output=b.ccob")
	data, _ := os.ReadFile(filepath.Join(dir, "b.ccob"))
	n := Inspect(bytes.NewReader(data), int64(len(data)), "b.ccob", Options{})
	if n.Failed() || n.Compression == nil || !n.Compression.HashOK || n.Compression.Version != 3 || n.Compression.Method != "zstd" {
		t.Fatalf("good CCOB: %s", dump(n))
	}
	data[24] ^= 0xff // first byte of the v3 hash field
	n = Inspect(bytes.NewReader(data), int64(len(data)), "b.ccob", Options{})
	if !n.Failed() || n.Compression == nil || n.Compression.HashOK || !strings.Contains(n.Error, "hash") {
		t.Fatalf("corrupted hash not reported: %s", dump(n))
	}
}

func TestOffloadBinaryAgainstLLVM(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.o"), []byte("AAAA"), 0o644)
	m := &ir.Module{SourceFilename: "b.cu", Triple: "nvptx64-nvidia-cuda"}
	m.AddGlobal("g", ir.I32).Init = ir.ConstInt(ir.I32, 1)
	var bc bytes.Buffer
	if err := m.WriteBitcode(&bc); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b.bc"), bc.Bytes(), 0o644)
	llvmtest.Run(t, dir, "llvm-offload-binary-22", "-o", "p.bin",
		"--image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip",
		"--image=file=b.bc,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp")
	n := inspectFile(t, filepath.Join(dir, "p.bin"))
	if n.Format != "offload-binary" || len(n.Children) != 2 || n.Failed() {
		t.Fatalf("got %s", dump(n))
	}
	a, b := n.Children[0].Entry, n.Children[1].Entry
	if a.Triple != "amdgcn-amd-amdhsa" || a.Arch != "gfx90a" || strings.Join(a.Features, ":") != "xnack+" || a.OffloadKind != "hip" || a.ImageKind != "elf" {
		t.Errorf("first image: %+v", a)
	}
	if b.Triple != "nvptx64-nvidia-cuda" || b.Arch != "sm_90" || b.OffloadKind != "openmp" || b.ImageKind != "llvm ir" {
		t.Errorf("second image: %+v", b)
	}
	if c := n.Children[1]; c.Format != "bitcode" || c.Detail != "LLVM bitcode: b.cu for nvptx64-nvidia-cuda, by "+ir.Producer {
		t.Errorf("bitcode image recognised as %q (%s)", c.Format, c.Detail)
	}
}

// TestDamagedBitcodeSaysWhere: bitcode whose header records cannot be
// read is reported with the offset, as other damaged formats are.
func TestDamagedBitcodeSaysWhere(t *testing.T) {
	m := &ir.Module{SourceFilename: "k.c", Triple: "x86_64-unknown-linux-gnu"}
	m.AddGlobal("g", ir.I32).Init = ir.ConstInt(ir.I32, 1)
	var bc bytes.Buffer
	if err := m.WriteBitcode(&bc); err != nil {
		t.Fatal(err)
	}
	data := bc.Bytes()[:64] // cut inside the module block
	n := Inspect(bytes.NewReader(data), int64(len(data)), "bad.bc", Options{})
	if n.Format != "bitcode" || !n.Failed() || !strings.Contains(n.Error, "at offset") {
		t.Fatalf("got %s", dump(n))
	}
}

func TestNewDriverObjectInArchive(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "k.hip"), []byte(hipSource), 0o644)
	llvmtest.Run(t, dir, "clang++-22", "-cuid=fixed", "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "--offload-arch=gfx906",
		"--offload-arch=gfx1100", "-nogpuinc", "-nogpulib", "-c", "k.hip", "-o", "k.o")
	llvmtest.Run(t, dir, "llvm-ar-22", "rc", "lib.a", "k.o")
	objdump := llvmtest.Run(t, dir, "llvm-objdump-22", "--offloading", "k.o")
	n := inspectFile(t, filepath.Join(dir, "lib.a"))
	s := dump(n)
	if n.Format != "archive" || n.Failed() {
		t.Fatalf("got %s", s)
	}
	for _, arch := range []string{"gfx906", "gfx1100"} {
		if !strings.Contains(objdump, "arch            "+arch) {
			t.Fatalf("llvm-objdump does not show %s:\n%s", arch, objdump)
		}
		if !strings.Contains(s, `"arch": "`+arch+`"`) {
			t.Errorf("inspect misses %s image: %s", arch, s)
		}
	}
}

func TestTruncatedBundleSaysWhere(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h"), []byte("HOSTDATA"), 0o644)
	os.WriteFile(filepath.Join(dir, "d"), []byte("DEV1"), 0o644)
	llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=bc",
		"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
		"-input=h", "-input=d", "-output=b.bc")
	data, _ := os.ReadFile(filepath.Join(dir, "b.bc"))
	n := Inspect(bytes.NewReader(data[:len(data)-1]), int64(len(data)-1), "b.bc", Options{})
	if !n.Failed() || !strings.Contains(n.Error, "offset") {
		t.Fatalf("truncated bundle: %s", dump(n))
	}
}

func TestDepthLimit(t *testing.T) {
	// A bundle whose only entry is the bundle itself, nested 40 times.
	inner := []byte("x")
	for i := 0; i < 40; i++ {
		inner = wrapBundle(inner)
	}
	n := Inspect(bytes.NewReader(inner), int64(len(inner)), "deep", Options{MaxDepth: 8})
	if !n.Failed() || !strings.Contains(dump(n), "nesting deeper than 8") {
		t.Fatalf("depth limit not applied")
	}
}

// wrapBundle builds a one-entry binary bundle by hand (layout in
// docs/provenance.md#binary-bundle), independent of the bundle package.
func wrapBundle(payload []byte) []byte {
	id := "hip-amdgcn-amd-amdhsa--gfx906"
	var b bytes.Buffer
	b.WriteString("__CLANG_OFFLOAD_BUNDLE__")
	le := func(v uint64) {
		for i := 0; i < 8; i++ {
			b.WriteByte(byte(v >> (8 * i)))
		}
	}
	le(1)
	le(uint64(24 + 8 + 24 + len(id)))
	le(uint64(len(payload)))
	le(uint64(len(id)))
	b.WriteString(id)
	b.Write(payload)
	return b.Bytes()
}

func dump(n *Node) string {
	b, _ := json.MarshalIndent(n, "", " ")
	return string(b)
}

func FuzzInspect(f *testing.F) {
	f.Add(wrapBundle([]byte("x")))
	f.Add(wrapBundle(wrapBundle([]byte("\x7fELF"))))
	f.Add([]byte("CCOB\x03\x00\x01\x00"))
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("\x10\xff\x10\xad\x01\x00\x00\x00"))
	f.Add([]byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n"))
	coff, _ := coffWith([]string{".llvm.offloading"}, [][]byte{coffPackage(f)})
	f.Add(coff)
	// The robustness review's hostile inputs, small.
	f.Add(hostile.CCOBZlib(hostile.COFFLongNames(20, 4096, 0)))
	f.Add(hostile.CCOBZlib(hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 1, Arch: 80, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx\x00")), Inflated: 4},
		{Kind: 1, Arch: 80, Header: 1024, LongStrings: true, Payload: []byte("x\x00")},
	})))
	// Records nested, each padded after the next (one look each).
	f.Add(hostile.PaddedChain(3, 1024, hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{0})))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := Inspect(bytes.NewReader(data), int64(len(data)), "fuzz", Options{MaxUncompressedSize: 1 << 20, KeepCompressed: 1 << 16})
		if _, err := json.Marshal(n); err != nil {
			t.Fatal(err)
		}
	})
}

// A compressed bundle larger than the prefix kept in memory is read
// whole: the walk of the prefix reads past it, and the record is decoded
// again into a temporary file, as the robustness review asked.
func TestCompressedBundleLargerThanPrefix(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a"}
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 57)...)
	body := append(hostile.BundleHeader(ids, []int64{0, 10000, int64(len(elf))}), make([]byte, 10000)...)
	in := hostile.CCOBZlib(append(body, elf...))
	for _, keep := range []int{1 << 16, 4096} {
		n := Inspect(bytes.NewReader(in), int64(len(in)), "in", Options{KeepCompressed: keep, TempDir: t.TempDir()})
		var errs []string
		var walk func(*Node)
		walk = func(n *Node) {
			if n.Error != "" {
				errs = append(errs, n.Error)
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(n)
		b := n.Children[0]
		if len(errs) != 0 || b.Format != "bundle" || len(b.Children) != 3 || b.Children[2].Format != "elf" {
			out, _ := json.Marshal(n)
			t.Errorf("keep %d: errors %q, tree %s", keep, errs, out)
		}
	}
}
