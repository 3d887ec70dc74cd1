package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// inputs are the files the cases read; prepare builds them once per scale
// and work directory and reuses them on later runs.
type inputs struct {
	host    string   // x86-64 ELF object compiled by clang-22
	dev     []string // four targets of device code, each replicated to perTarget bytes
	devIDs  []string
	rnd     []string // four incompressible inputs of perTarget bytes
	code    []string // every compiled target once, not replicated: a realistic fat binary
	codeIDs []string
	archive string   // members × four targets, as llvm-ar-22 writes it
	images  []string // four packager images of bigSize/4 bytes (device code)
	big     string   // a bigSize bundle of the images
	bigAr   string   // a bigSize archive of the images
}

// inputsVersion changes whenever what prepare builds changes.
const inputsVersion = "1"

type bench struct {
	sc  scale
	dir string
	bin string
}

func (b *bench) path(name string) string { return filepath.Join(b.dir, "in", name) }

func (b *bench) prepare() (*inputs, error) {
	stamp := fmt.Sprintf("v%s %+v\n", inputsVersion, b.sc)
	stampPath := b.path("stamp")
	if old, _ := os.ReadFile(stampPath); string(old) != stamp {
		os.RemoveAll(filepath.Join(b.dir, "in"))
	}
	if err := os.MkdirAll(filepath.Join(b.dir, "in"), 0o755); err != nil {
		return nil, err
	}
	in := &inputs{host: b.path("host.o")}
	if err := b.compileAll(in); err != nil {
		return nil, err
	}
	if err := b.buildData(in); err != nil {
		return nil, err
	}
	if err := b.buildArchive(in); err != nil {
		return nil, err
	}
	if err := b.buildBig(in); err != nil {
		return nil, err
	}
	return in, os.WriteFile(stampPath, []byte(stamp), 0o644)
}

// compileAll compiles the host object and every (target, seed) device
// object, two clang jobs at a time.
func (b *bench) compileAll(in *inputs) error {
	if err := b.writeSources(); err != nil {
		return err
	}
	var jobs [][]string
	if !exists(in.host) {
		jobs = append(jobs, []string{"clang-22", "-c", "-O2", b.path("host.c"), "-o", in.host})
	}
	for _, arch := range append(append([]string{}, b.sc.amdArchs...), b.sc.ptxArchs...) {
		for s := range b.sc.seeds {
			out := b.objPath(arch, s)
			if !exists(out) {
				jobs = append(jobs, compileCmd(arch, b.path(fmt.Sprintf("src%d.hip", s)), out))
			}
		}
		in.code = append(in.code, b.path(arch+".code"))
		in.codeIDs = append(in.codeIDs, targetID(arch))
	}
	for _, arch := range b.sc.amdArchs[:4] {
		out := b.path("small-" + arch + ".co")
		if !exists(out) {
			jobs = append(jobs, compileCmd(arch, b.path("small.hip"), out))
		}
	}
	if len(jobs) > 0 {
		fmt.Fprintf(os.Stderr, "bench: compiling %d device and host objects with clang-22\n", len(jobs))
	}
	if err := runParallel(jobs, 2); err != nil {
		return err
	}
	for i, arch := range append(append([]string{}, b.sc.amdArchs...), b.sc.ptxArchs...) {
		var objs []string
		for s := range b.sc.seeds {
			objs = append(objs, b.objPath(arch, s))
		}
		if err := concatOnce(in.code[i], objs); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) writeSources() error {
	files := map[string]string{"host.c": hostSource, "small.hip": deviceSource(1000, 4)}
	for s := range b.sc.seeds {
		files[fmt.Sprintf("src%d.hip", s)] = deviceSource(uint64(s+1), b.sc.kernels)
	}
	for name, text := range files {
		if old, err := os.ReadFile(b.path(name)); err == nil && string(old) == text {
			continue
		}
		if err := os.WriteFile(b.path(name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) objPath(arch string, seed int) string {
	return b.path(fmt.Sprintf("%s-s%d.obj", arch, seed))
}

// compileCmd compiles src for one GPU: an AMDGPU code object, or PTX
// (assembly; no CUDA installation is needed for it).
func compileCmd(arch, src, out string) []string {
	if strings.HasPrefix(arch, "sm_") {
		return []string{"clang++-22", "-x", "cuda", "--cuda-device-only", "-S", "-nocudainc", "-nocudalib", "-O3",
			"--cuda-gpu-arch=" + arch, "-Xclang", "-target-feature", "-Xclang", "+ptx75", src, "-o", out}
	}
	return []string{"clang++-22", "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", "-O3",
		"--offload-arch=" + arch, "--no-gpu-bundle-output", "-c", src, "-o", out}
}

func targetID(arch string) string {
	if strings.HasPrefix(arch, "sm_") {
		return "hip-nvptx64-nvidia-cuda-" + arch
	}
	return "hipv4-amdgcn-amd-amdhsa--" + arch
}

// buildData writes the replicated device inputs, the random inputs and the
// packager images.
func (b *bench) buildData(in *inputs) error {
	for i, arch := range b.sc.amdArchs[:4] {
		in.devIDs = append(in.devIDs, targetID(arch))
		in.dev = append(in.dev, b.path("dev-"+arch+".co"))
		if err := replicate(in.dev[i], in.code[i], b.sc.perTarget); err != nil {
			return err
		}
		in.rnd = append(in.rnd, b.path(fmt.Sprintf("random%d.bin", i)))
		if err := randomFile(in.rnd[i], uint64(i), b.sc.perTarget); err != nil {
			return err
		}
		in.images = append(in.images, b.path("image-"+arch+".co"))
		if err := replicate(in.images[i], in.code[i], b.sc.bigSize/4); err != nil {
			return err
		}
	}
	return nil
}

// buildArchive bundles the host object with four small device objects
// (with LLVM's bundler) and archives members copies of it.
func (b *bench) buildArchive(in *inputs) error {
	in.archive = b.path("device-lib.a")
	if exists(in.archive) {
		return nil
	}
	member := b.path("member.o")
	args := []string{"clang-offload-bundler-22", "-type=o", "-targets=host-x86_64-unknown-linux-gnu-"}
	inputs := []string{"-input=" + in.host}
	for _, arch := range b.sc.amdArchs[:4] {
		args[2] += ",hip-amdgcn-amd-amdhsa--" + arch
		inputs = append(inputs, "-input="+b.path("small-"+arch+".co"))
	}
	if err := runCmd(append(append(args, inputs...), "-output="+member)); err != nil {
		return err
	}
	data, err := os.ReadFile(member)
	if err != nil {
		return err
	}
	mdir := b.path("members")
	os.RemoveAll(mdir)
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		return err
	}
	ar := []string{"llvm-ar-22", "rcs", in.archive + ".tmp"}
	for i := range b.sc.members {
		name := filepath.Join(mdir, fmt.Sprintf("kernels%04d.o", i))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return err
		}
		ar = append(ar, name)
	}
	os.Remove(in.archive + ".tmp")
	if err := runCmd(ar); err != nil {
		return err
	}
	os.RemoveAll(mdir)
	return os.Rename(in.archive+".tmp", in.archive)
}

// buildBig makes the bigSize bundle and archive of the four images.
func (b *bench) buildBig(in *inputs) error {
	in.big, in.bigAr = b.path("big.hipfb"), b.path("big.a")
	if !exists(in.big) {
		args := []string{filepath.Join(b.bin, "clang-offload-bundler"), "-type=o", "-bundle-align=4096",
			"-targets=host-x86_64-unknown-linux-gnu-," + strings.Join(in.devIDs, ","), "-input=/dev/null"}
		for _, im := range in.images {
			args = append(args, "-input="+im)
		}
		if err := runCmd(append(args, "-output="+in.big)); err != nil {
			return err
		}
	}
	if !exists(in.bigAr) {
		os.Remove(in.bigAr + ".tmp")
		if err := runCmd(append([]string{"llvm-ar-22", "rc", in.bigAr + ".tmp"}, in.images...)); err != nil {
			return err
		}
		return os.Rename(in.bigAr+".tmp", in.bigAr)
	}
	return nil
}

// replicate writes size bytes of src repeated. Like every input here it
// is written in large chunks, so that all inputs sit in the page cache the
// same way (the kernel copies large folios faster than small ones).
func replicate(dst, src string, size int64) error {
	if fileSize(dst) == size {
		return nil
	}
	unit, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if len(unit) == 0 {
		return fmt.Errorf("%s is empty", src)
	}
	chunk := bytes.Repeat(unit, max(1, (4<<20)/len(unit)))
	return writeStream(dst, size, func(p []byte) {
		for i := 0; i < len(p); {
			i += copy(p[i:], chunk)
		}
	}, len(chunk))
}

// randomFile writes size incompressible bytes from a seeded ChaCha8.
func randomFile(dst string, seed uint64, size int64) error {
	if fileSize(dst) == size {
		return nil
	}
	var key [32]byte
	key[0] = byte(seed)
	rng := rand.NewChaCha8(key)
	return writeStream(dst, size, func(p []byte) { rng.Read(p) }, 4<<20)
}

// writeStream writes size bytes to dst through a temporary file, asking
// fill for each chunk. When the chunk is the repeat unit, fill sees the
// same buffer each time, so the unit stays aligned across chunks.
func writeStream(dst string, size int64, fill func([]byte), chunk int) error {
	f, err := os.Create(dst + ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	buf := make([]byte, chunk)
	fill(buf)
	for left := size; left > 0; {
		n := min(left, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return err
		}
		left -= n
		fill(buf)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), dst)
}

func concatOnce(dst string, srcs []string) error {
	var all []byte
	for _, s := range srcs {
		b, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		all = append(all, b...)
	}
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, all) {
		return nil
	}
	return os.WriteFile(dst, all, 0o644)
}

func runParallel(jobs [][]string, n int) error {
	sem := make(chan struct{}, n)
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = runCmd(j)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func runCmd(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, stderr.Bytes())
	}
	return nil
}

func exists(p string) bool { return fileSize(p) >= 0 }

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return fi.Size()
}
