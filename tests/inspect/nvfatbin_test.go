package inspect_test

import (
	"bytes"
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
