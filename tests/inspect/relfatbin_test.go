package inspect_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// nvcc's relocatable device code (-rdc=true) is a fat binary in the
// object's __nv_relfatbin section; nvlink's device-link objects (nvcc
// -dlink) keep theirs in .nv_fatbin. inspect lists and extract writes the
// images of both, and of archives of them (nvcc -lib), each with its SM
// and kind.

// cuobjdumpListing reads `cuobjdump -lelf -lptx` output (a "== FILE"
// line before each file's) into each file's images, as "cubin sm_80" or
// "ptx sm_75", in cuobjdump's order.
func cuobjdumpListing(text string) map[string][]string {
	out := map[string][]string{}
	file := ""
	line := regexp.MustCompile(`^(ELF|PTX) file\s+\d+: .*\.(sm_\d+)\.(cubin|ptx)$`)
	for _, l := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(l, "== "); ok {
			file = name
		} else if m := line.FindStringSubmatch(l); m != nil {
			out[file] = append(out[file], map[string]string{"ELF": "cubin", "PTX": "ptx"}[m[1]]+" "+m[2])
		}
	}
	return out
}

// inspectImages runs inspect --json on file and returns the entries of
// every fat binary in it, as cuobjdumpListing does, with the errors met.
func inspectImages(t *testing.T, dir, file string) (images, errs []string) {
	t.Helper()
	r := run(t, dir, nil, offloadBin, "inspect", "--json", file)
	var doc struct{ Files []json.RawMessage }
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Files) != 1 {
		t.Fatalf("inspect --json %s: %v\n%s", file, err, r.Stdout)
	}
	type node struct {
		Format string `json:"format"`
		Entry  *struct {
			Arch      string `json:"arch"`
			ImageKind string `json:"image_kind"`
		} `json:"entry"`
		Error    string  `json:"error"`
		Children []*node `json:"children"`
	}
	var walk func(n *node, inFatbin bool)
	walk = func(n *node, inFatbin bool) {
		if n.Error != "" {
			errs = append(errs, n.Error)
		}
		if inFatbin && n.Entry != nil {
			images = append(images, n.Entry.ImageKind+" "+n.Entry.Arch)
		}
		for _, c := range n.Children {
			walk(c, n.Format == "cuda-fatbin")
		}
	}
	var root node
	json.Unmarshal(doc.Files[0], &root)
	walk(&root, false)
	return images, errs
}

func testdata(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", "nvcc", name))
	return p
}

// CUDA 11.8's objects (checked in: nvcc 11.8 built them, provenance in
// docs/provenance.md): the images inspect lists are those cuobjdump 11.8
// listed, in its order, and none fails.
func TestNVCC118RelocatableObjects(t *testing.T) {
	want := cuobjdumpListing(string(llvmtest.ReadFile(t, testdata("nvcc118-cuobjdump.txt"))))
	for _, f := range []string{"nvcc118-k2.rdc.o", "nvcc118-libk.a", "nvcc118-dlink.o"} {
		got, errs := inspectImages(t, t.TempDir(), testdata(f))
		if len(errs) != 0 || !slices.Equal(got, want[f]) {
			t.Errorf("%s: inspect lists %v (errors %q); cuobjdump %v", f, got, errs, want[f])
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "nvcc118-libk.a"), llvmtest.ReadFile(t, testdata("nvcc118-libk.a")), 0o644)
	r := mustRun(t, dir, nil, offloadBin, "extract", "--list", "nvcc118-libk.a")
	if n := strings.Count(r.Stdout, "\n"); n != 6 || !strings.Contains(r.Stdout, "nvcc118-libk-cuda-nvptx64-nvidia-cuda-sm_80.1.cubin\t1984\tnvcc118-libk.a: k3.rdc.o: __nv_relfatbin: entry 0\n") {
		t.Errorf("extract --list of the archive: %d lines:\n%s", n, r.Stdout)
	}
}

// CUDA 13's -rdc objects (made by nvcc 13 on a GPU machine, docs/provenance.md): inspect lists the
// entries cuobjdump 13.0 listed, each inflated (CUDA 13 compresses them
// with ZSTD), and extract writes all of them: k2's cubins are, byte for
// byte, what nvcc 13 -cubin -rdc=true wrote for the same source.
func TestCUDA13RelocatableObjects(t *testing.T) {
	want := cuobjdumpListing(string(llvmtest.ReadFile(t, testdata("cuda13-cuobjdump.txt"))))
	for _, f := range []string{"k2.rdc.o", "k3.rdc.o"} {
		dir := t.TempDir()
		got, errs := inspectImages(t, dir, testdata("cuda13-"+f))
		if len(errs) != 0 || !slices.Equal(got, want[f]) {
			t.Errorf("%s: inspect lists %v (errors %q); cuobjdump %v", f, got, errs, want[f])
		}
		r := run(t, dir, nil, offloadBin, "extract", "-o", "out", testdata("cuda13-"+f))
		names, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
		if r.Code != 0 || len(names) != len(want[f]) {
			t.Errorf("%s: extract -o: exit %d, %d files:\n%s", f, r.Code, len(names), r.Stderr)
		}
		if f != "k2.rdc.o" {
			continue
		}
		for _, sm := range []string{"sm_80", "sm_90"} {
			got, err := os.ReadFile(filepath.Join(dir, "out", "cuda13-k2.rdc-cuda-nvptx64-nvidia-cuda-"+sm+".cubin"))
			if err != nil || !bytes.Equal(got, llvmtest.ReadFile(t, testdata("cuda13-k2.rdc."+sm+".cubin"))) {
				t.Errorf("%s: the %s cubin extracted differs from nvcc's (%v)", f, sm, err)
			}
		}
	}
}

// Against nvcc and cuobjdump 11.8 (on the machine): k2.cu and k3.cu built
// with -rdc=true, device-linked and archived afresh; every image extract
// writes is the file cuobjdump -xelf/-xptx writes, byte for byte.
func TestNVCCRelocatableAgainstCuobjdump(t *testing.T) {
	llvmtest.Need(t, "nvcc", "cuobjdump")
	dir := t.TempDir()
	gencode := []string{"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_75,code=[sm_75,compute_75]"}
	for _, k := range []string{"k2", "k3"} {
		llvmtest.Run(t, dir, "cp", testdata(k+".cu"), ".")
		llvmtest.Run(t, dir, "nvcc", append(append([]string{"-rdc=true"}, gencode...), "-c", k+".cu", "-o", k+".o")...)
	}
	llvmtest.Run(t, dir, "nvcc", append(append([]string{"-dlink"}, gencode...), "k2.o", "k3.o", "-o", "dlink.o")...)
	for _, obj := range []string{"k2.o", "dlink.o"} {
		sub := filepath.Join(dir, obj+".d")
		os.Mkdir(sub, 0o755)
		llvmtest.Run(t, sub, "cp", filepath.Join(dir, obj), ".")
		nv := cuobjdumpImages(t, sub, obj)
		mustRun(t, sub, nil, offloadBin, "extract", "-o", "ours", obj)
		ours := llvmtest.DirNames(t, filepath.Join(sub, "ours"))
		if len(ours) != len(nv) {
			t.Errorf("%s: extract wrote %v, cuobjdump %d images", obj, ours, len(nv))
		}
		for key, want := range nv {
			kind, sm, _ := strings.Cut(key, " ")
			ext := map[string]string{"cubin": "cubin", "ptx": "s"}[kind]
			name := fmt.Sprintf("%s-cuda-nvptx64-nvidia-cuda-%s.%s", strings.TrimSuffix(obj, ".o"), sm, ext)
			if got, err := os.ReadFile(filepath.Join(sub, "ours", name)); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %s differs from cuobjdump's %s (%v)", obj, name, key, err)
			}
		}
	}
}

// relfatbinObject is the checked-in CUDA 11.8 k2.rdc.o with its
// __nv_relfatbin section's header edited by edit (given the section's
// offset in the file and the bytes).
func relfatbinObject(t *testing.T, edit func(b []byte, off, size int64)) []byte {
	b := llvmtest.ReadFile(t, testdata("nvcc118-k2.rdc.o"))
	f, err := elfobj.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := f.SectionByName("__nv_relfatbin")
	if !ok {
		t.Fatal("no __nv_relfatbin")
	}
	edit(b, int64(s.Offset), int64(s.Size))
	return b
}

// withSections adds sections named name holding data to the checked-in
// object, n of them.
func withSections(t *testing.T, name string, data []byte, n int) []byte {
	host := llvmtest.ReadFile(t, testdata("nvcc118-k2.rdc.o"))
	secs := make([]elfobj.NewSection, n)
	for i := range secs {
		secs[i] = elfobj.NewSection{Name: name, Type: 1, Align: 8, Data: bytes.NewReader(data), Size: int64(len(data))}
	}
	var out bytes.Buffer
	if err := elfobj.AddSections(&out, bytes.NewReader(host), int64(len(host)), secs); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// sharedSections points every __nv_relfatbin section of the object b at
// the bytes of its first one, the checked-in fat binary.
func sharedSections(t *testing.T, b []byte) []byte {
	f, err := elfobj.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	shoff, shentsize := int64(le.Uint64(b[0x28:])), int64(le.Uint16(b[0x3a:]))
	first, _ := f.SectionByName("__nv_relfatbin")
	for _, s := range f.Sections {
		if s.Name == "__nv_relfatbin" {
			h := b[shoff+int64(s.Index)*shentsize:]
			le.PutUint64(h[0x18:], first.Offset)
			le.PutUint64(h[0x20:], first.Size)
		}
	}
	return b
}

// Hostile __nv_relfatbin sections: a fat binary that says it is larger
// than its section (pointing outside it), one cut short inside an entry,
// and objects nested in fat binaries 200 deep, or 2,000 sections over one
// fat binary. Each is a clear error (or, nested, a bounded listing) within
// the caps, and extract -o writes nothing when it fails.
func TestRelfatbinHostile(t *testing.T) {
	dir := t.TempDir()
	outside := relfatbinObject(t, func(b []byte, off, size int64) {
		binary.LittleEndian.PutUint64(b[off+8:], 1<<40) // the container's size
	})
	cut := relfatbinObject(t, func(b []byte, off, size int64) {
		binary.LittleEndian.PutUint64(b[off+8:], uint64(size-16-200)) // ends inside its first entry
	})
	nested := llvmtest.ReadFile(t, testdata("nvcc118-k2.rdc.o"))
	for range 200 {
		fb := hostile.NVFatbin([]hostile.NVEntry{{Kind: 2, Arch: 80, Header: 72, Payload: nested}})
		nested = withSections(t, "__nv_relfatbin", fb, 1)
		if len(nested) > 4<<20 {
			break
		}
	}
	fanout := sharedSections(t, withSections(t, "__nv_relfatbin", []byte{0}, 2000))
	for name, b := range map[string][]byte{"outside.o": outside, "cut.o": cut, "nested.o": nested, "fanout.o": fanout} {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	for _, c := range []struct {
		file string
		code int
		want string
	}{
		{"outside.o", 1, "nvfatbin: "},
		{"cut.o", 1, "nvfatbin: "},
		{"nested.o", 1, "nesting deeper than 16 levels"},
		{"fanout.o", 0, "same bytes as fanout.o: __nv_relfatbin: described there"},
	} {
		r := runCapped(t, dir, "offload", "inspect", c.file)
		t.Logf("inspect %s (%d bytes): exit %d, %v, %d MiB", c.file, len(map[string][]byte{"outside.o": outside, "cut.o": cut, "nested.o": nested, "fanout.o": fanout}[c.file]), r.Code, r.Wall.Round(time.Millisecond), r.PeakRSS>>20)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("inspect %s: %v; want exit %d saying %q", c.file, r, c.code, c.want)
		}
		out := "out-" + c.file
		r = runCapped(t, dir, "offload", "extract", "-o", out, c.file)
		names, _ := filepath.Glob(filepath.Join(dir, out, "*"))
		switch {
		case c.code == 1 && c.file != "nested.o":
			if r.Code != 1 || !strings.Contains(r.Output, c.file+": __nv_relfatbin: nvfatbin: ") || len(names) != 0 {
				t.Errorf("extract %s: %v, %d files; want a clear error naming the section, nothing written", c.file, r, len(names))
			}
		case r.Code != 0 || len(names) == 0:
			t.Errorf("extract %s: %v, %d files; want the images written", c.file, r, len(names))
		}
	}
}
