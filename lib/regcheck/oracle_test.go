package regcheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// The kernels the check finds in each image are the ones NVIDIA's cuobjdump
// (symbols with st_other STO_ENTRY, 0x10, in a cubin's .symtab) and LLVM 22's
// llvm-readelf (an AMDGPU code object's .kd kernel descriptors) list.
func TestKernelsMatchTools(t *testing.T) {
	llvmtest.Need(t, "cuobjdump", "llvm-readelf-22")
	dir := t.TempDir()
	for _, ex := range examples[:2] {
		rec := mustParse(t, mustRead(t, ex.file))
		u := rec.Units[0]
		imgs, err := rec.Images(u)
		if err != nil {
			t.Fatal(err)
		}
		raw := rawImages(t, rec, u)
		if len(raw) != len(imgs) {
			t.Fatalf("%s: %d images, %d raw", ex.file, len(imgs), len(raw))
		}
		for i, im := range imgs {
			if im.Format == "PTX" {
				continue
			}
			path := filepath.Join(dir, strings.ReplaceAll(im.Target, ":", "_"))
			if err := os.WriteFile(path, raw[i], 0o644); err != nil {
				t.Fatal(err)
			}
			var want []string
			if u.Kind == "cuda" {
				want = cuobjdumpKernels(t, path)
			} else {
				want = readelfKernels(t, path)
			}
			if strings.Join(want, " ") != strings.Join(im.Kernels, " ") {
				t.Errorf("%s %s: kernels %q, the tool lists %q", ex.file, im.Target, im.Kernels, want)
			}
		}
	}
}

// rawImages returns the bytes of a unit's images, in the order Images
// lists them.
func rawImages(t *testing.T, rec *Record, u *Unit) [][]byte {
	r := rec.Open(u.Blobs[0])
	var out [][]byte
	read := func(off, n int64) []byte {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if u.Kind == "cuda" {
		entries, err := nvfatbin.ReadAll(r, r.Size())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out = append(out, read(e.Offset, e.Size))
		}
		return out
	}
	entries, err := bundle.ReadBinary(r, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.ID, "host-") {
			out = append(out, read(e.Offset, e.Size))
		}
	}
	return out
}

// cuobjdumpKernels reads `cuobjdump -elf`'s .symtab rows: index, value,
// size, info, other, shndx, name.
func cuobjdumpKernels(t *testing.T, path string) []string {
	out, err := exec.Command("cuobjdump", "-elf", path).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump -elf %s: %v\n%s", path, err, out)
	}
	var kernels []string
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, ".section .symtab"):
			in = true
		case in && len(f) == 0:
			in = false
		case in && len(f) == 7 && f[4] == "0x10":
			kernels = append(kernels, f[6])
		}
	}
	sort.Strings(kernels)
	return kernels
}

// readelfKernels lists the kernel descriptors (NAME.kd) of a code object.
func readelfKernels(t *testing.T, path string) []string {
	out, err := exec.Command("llvm-readelf-22", "--symbols", "-W", path).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-readelf-22 %s: %v\n%s", path, err, out)
	}
	seen := map[string]bool{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) == 8 && strings.HasSuffix(f[7], ".kd") && f[4] != "LOCAL" {
			seen[strings.TrimSuffix(f[7], ".kd")] = true
		}
	}
	var kernels []string
	for k := range seen {
		kernels = append(kernels, k)
	}
	sort.Strings(kernels)
	return kernels
}
