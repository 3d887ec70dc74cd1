package inspect_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// A CUDA host object made by clang-22 around a fat binary made by NVIDIA's
// fatbinary: inspect lists the entries cuobjdump lists, and extract writes
// the cubins cuobjdump extracts, byte for byte.
func TestNVIDIAFatBinaryInHostObject(t *testing.T) {
	llvmtest.Need(t, "nvcc", "ptxas", "fatbinary", "cuobjdump", "clang++-22")
	dir := t.TempDir()
	src := llvmtest.WriteFile(t, dir, "k.cu", []byte("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2; }\n"))
	llvmtest.Run(t, dir, "nvcc", "-ptx", "-arch=compute_70", src, "-o", "k.ptx")
	args := []string{"-64", "--create=k.fatbin", "--compress=false", "--image=profile=compute_70,file=k.ptx"}
	for _, a := range []string{"sm_70", "sm_80", "sm_86"} {
		llvmtest.Run(t, dir, "ptxas", "-arch="+a, "k.ptx", "-o", a+".cubin")
		args = append(args, "--image=profile="+a+",file="+a+".cubin")
	}
	llvmtest.Run(t, dir, "fatbinary", args...)
	llvmtest.Run(t, dir, "clang++-22", "--cuda-path=/usr/lib/cuda", "-x", "cuda", "--cuda-host-only",
		"-Xclang", "-fcuda-include-gpubinary", "-Xclang", "k.fatbin", "-c", src, "-o", "host.o")

	// cuobjdump's view of the object.
	var want []string
	line := regexp.MustCompile(`^(ELF|PTX) file\s+\d+: .*\.(sm_\d+)\.(cubin|ptx)$`)
	for _, flag := range []string{"-lelf", "-lptx"} {
		for _, l := range strings.Split(llvmtest.Run(t, dir, "cuobjdump", flag, "host.o"), "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				want = append(want, map[string]string{"ELF": "cubin", "PTX": "ptx"}[m[1]]+" "+m[2])
			}
		}
	}
	sort.Strings(want)

	var doc struct {
		Files []struct {
			Children []struct {
				Name     string `json:"name"`
				Format   string `json:"format"`
				Children []struct {
					Entry struct {
						Arch      string `json:"arch"`
						ImageKind string `json:"image_kind"`
					} `json:"entry"`
				} `json:"children"`
			} `json:"children"`
		} `json:"files"`
	}
	out := mustRun(t, dir, nil, offloadBin, "inspect", "--json", "host.o")
	if err := json.Unmarshal([]byte(out.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sec := range doc.Files[0].Children {
		if sec.Name == ".nv_fatbin" {
			for _, c := range sec.Children {
				got = append(got, c.Entry.ImageKind+" "+c.Entry.Arch)
			}
		}
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("inspect lists %v, cuobjdump %v", got, want)
	}

	os.Mkdir(filepath.Join(dir, "ours"), 0o755)
	mustRun(t, dir, nil, offloadBin, "extract", "-o", "ours", "host.o")
	os.Mkdir(filepath.Join(dir, "nv"), 0o755)
	llvmtest.Run(t, filepath.Join(dir, "nv"), "cuobjdump", "-xelf", "all", "../host.o")
	for _, a := range []string{"sm_70", "sm_80", "sm_86"} {
		nv, _ := filepath.Glob(filepath.Join(dir, "nv", "*."+a+".cubin"))
		ours := filepath.Join(dir, "ours", fmt.Sprintf("host-cuda-nvptx64-nvidia-cuda-%s.cubin", a))
		if len(nv) != 1 || !bytes.Equal(llvmtest.ReadFile(t, nv[0]), llvmtest.ReadFile(t, ours)) {
			t.Errorf("%s: our extracted cubin differs from cuobjdump's (%v)", a, nv)
		}
	}
}

// compressedFatbinObject builds PTX for compute_70 and cubins for sm_80
// and sm_86 (the sm_80 one with debug information), has NVIDIA's
// fatbinary pack them with flags, embeds the result in a clang-22 host
// object and returns its name in dir.
func compressedFatbinObject(t *testing.T, dir string, flags ...string) string {
	src := llvmtest.WriteFile(t, dir, "k.cu", []byte("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2; }\n"+
		"extern \"C\" __global__ void add(float *x, const float *y, int n) { int i = threadIdx.x; if (i < n) x[i] += y[i]; }\n"))
	llvmtest.Run(t, dir, "nvcc", "-ptx", "-arch=compute_70", src, "-o", "k.ptx")
	llvmtest.Run(t, dir, "ptxas", "-arch=sm_80", "-g", "k.ptx", "-o", "sm_80.cubin")
	llvmtest.Run(t, dir, "ptxas", "-arch=sm_86", "k.ptx", "-o", "sm_86.cubin")
	args := append([]string{"-64", "--create=k.fatbin"}, flags...)
	args = append(args, "--image=profile=compute_70,file=k.ptx", "--image=profile=sm_80,file=sm_80.cubin",
		"--image=profile=sm_86,file=sm_86.cubin")
	llvmtest.Run(t, dir, "fatbinary", args...)
	llvmtest.Run(t, dir, "clang++-22", "--cuda-path=/usr/lib/cuda", "-x", "cuda", "--cuda-host-only",
		"-Xclang", "-fcuda-include-gpubinary", "-Xclang", "k.fatbin", "-c", src, "-o", "host.o")
	return "host.o"
}

// cuobjdumpImages runs cuobjdump -xelf all and -xptx all on obj in a new
// directory and returns what it wrote, by "cubin sm_80" or "ptx sm_70".
func cuobjdumpImages(t *testing.T, dir, obj string) map[string][]byte {
	nv := filepath.Join(dir, "nv")
	os.Mkdir(nv, 0o755)
	llvmtest.Run(t, nv, "cuobjdump", "-xelf", "all", filepath.Join("..", obj))
	llvmtest.Run(t, nv, "cuobjdump", "-xptx", "all", filepath.Join("..", obj))
	got := map[string][]byte{}
	name := regexp.MustCompile(`\.(sm_\d+)\.(cubin|ptx)$`)
	for _, f := range llvmtest.DirNames(t, nv) {
		m := name.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("cuobjdump wrote %s", f)
		}
		got[m[2]+" "+m[1]] = llvmtest.ReadFile(t, filepath.Join(nv, f))
	}
	return got
}

// A fat binary from NVIDIA's fatbinary with its entries compressed (PTX by
// default; cubins too under -g and --compress-all), embedded by clang-22:
// offload extract inflates every entry to the bytes cuobjdump -xelf and
// -xptx write. cuobjdump must call some entries compressed, or the test
// would not reach the decompression it is about.
func TestExtractCompressedNVIDIAFatBinary(t *testing.T) {
	llvmtest.Need(t, "nvcc", "ptxas", "fatbinary", "cuobjdump", "clang++-22")
	for _, c := range []struct {
		name       string
		flags      []string
		compressed int // entries cuobjdump calls compressed
	}{
		{"default", nil, 1},
		{"debug", []string{"-g"}, 3},
		{"compress-all", []string{"--compress-all"}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			obj := compressedFatbinObject(t, dir, c.flags...)
			if n := strings.Count(llvmtest.Run(t, dir, "cuobjdump", "-all", obj), "\ncompressed"); n != c.compressed {
				t.Fatalf("cuobjdump lists %d compressed entries, want %d", n, c.compressed)
			}
			want := cuobjdumpImages(t, dir, obj)
			if len(want) != 3 {
				t.Fatalf("cuobjdump wrote %d images, want 3", len(want))
			}
			os.Mkdir(filepath.Join(dir, "ours"), 0o755)
			mustRun(t, dir, nil, offloadBin, "extract", "-o", "ours", obj)
			ext := map[string]string{"cubin": "cubin", "ptx": "s"}
			for key, nv := range want {
				kind, arch, _ := strings.Cut(key, " ")
				ours := filepath.Join(dir, "ours", fmt.Sprintf("host-cuda-nvptx64-nvidia-cuda-%s.%s", arch, ext[kind]))
				if b := llvmtest.ReadFile(t, ours); !bytes.Equal(b, nv) {
					t.Errorf("%s: ours (%d bytes) differs from cuobjdump's (%d): %s", key, len(b), len(nv), llvmtest.FirstDiff(b, nv))
				}
			}
			if names := llvmtest.DirNames(t, filepath.Join(dir, "ours")); len(names) != len(want) {
				t.Errorf("extract wrote %v, cuobjdump %d images", names, len(want))
			}
		})
	}
}

// The inflated sizes a fat binary declares are charged to extract's
// budget before anything is decoded: a budget smaller than the PTX
// entry's declared size refuses the input and writes nothing, and a
// declared size raised past what the bytes inflate to is refused by the
// budget when it does not fit and by the decoder when it does, never
// with a crash.
func TestExtractNVIDIAFatBinaryBudget(t *testing.T) {
	llvmtest.Need(t, "nvcc", "ptxas", "fatbinary", "cuobjdump", "clang++-22")
	dir := t.TempDir()
	obj := compressedFatbinObject(t, dir)
	ptx := cuobjdumpImages(t, dir, obj)["ptx sm_70"]

	// The PTX entry declares its text and a NUL; the text alone is short.
	short := fmt.Sprintf("--max-uncompressed-size=%d", len(ptx))
	refuseBudget(t, dir, "extract", "--list", short, obj)
	refuseBudget(t, dir, "extract", "-o", "out", short, obj)
	mustRun(t, dir, nil, offloadBin, "extract", "--list", fmt.Sprintf("--max-uncompressed-size=%d", len(ptx)+1), obj)

	// A lying declaration: the first entry (the PTX, compressed) claims
	// 40 times what it holds, which the LZ4 bytes could encode.
	b := llvmtest.ReadFile(t, filepath.Join(dir, obj))
	fb := bytes.Index(b, []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0})
	if fb < 0 {
		t.Fatal("no fat binary in the host object")
	}
	entry := fb + 16
	if le := binary.LittleEndian; le.Uint16(b[entry:]) != 1 || le.Uint64(b[entry+56:]) != uint64(len(ptx)+1) {
		t.Fatalf("first entry is not the compressed PTX: kind %d, declared %d", le.Uint16(b[entry:]), le.Uint64(b[entry+56:]))
	}
	binary.LittleEndian.PutUint64(b[entry+56:], uint64(40*len(ptx)))
	llvmtest.WriteFile(t, dir, "lying.o", b)
	refuseBudget(t, dir, "extract", "--list", fmt.Sprintf("--max-uncompressed-size=%d", 39*len(ptx)), "lying.o")
	r := run(t, dir, nil, offloadBin, "extract", "-o", "out", "lying.o")
	if r.Code != 1 || !strings.Contains(r.Stderr, "lying.o") || !strings.Contains(r.Stderr, "declared") {
		t.Errorf("a declared size the bytes do not inflate to: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		if names := llvmtest.DirNames(t, filepath.Join(dir, "out")); len(names) != 0 {
			t.Errorf("refused inputs left %v", names)
		}
	}
}

// refuseBudget runs offload with args and requires it to fail on the
// decompression budget, naming the flag that raises it.
func refuseBudget(t *testing.T, dir string, args ...string) {
	t.Helper()
	r := run(t, dir, nil, append([]string{offloadBin}, args...)...)
	if r.Code != 1 || !strings.Contains(r.Stderr, "raise the limit with --max-uncompressed-size") {
		t.Errorf("%q: want a refusal by the budget, got %v", args, r)
	}
}
