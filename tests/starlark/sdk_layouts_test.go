package starlark_test

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// The CUDA repository rule (rules/sdk/cuda.bzl) on the layouts users install
// in 2026, built here from what was recorded on a machine with CUDA 13.0
// (testdata/cuda13: layout.txt, lib64.txt and ptxas-gpu-names.txt, copied
// from shared/fixtures/cuda13, docs/provenance.md). File and directory names
// are the recorded ones; contents are not (headers are empty but for
// CUDA_VERSION in cuda.h, libraries hold the soname objdump would report),
// so these trees prove what the rule links and declares, not what compiles:
// tests/bazel builds against real files.

// cudaAttrs is offload_cuda_repository's attributes at their defaults, with kv over them.
func cudaAttrs(kv ...string) starlark.StringDict {
	a := starlark.StringDict{
		"path": starlark.String(""), "urls": starlark.NewList(nil), "sha256": starlark.String(""),
		"strip_prefix": starlark.String(""), "type": starlark.String(""),
		"redist_json": starlark.String(""), "redist_json_sha256": starlark.String(""),
		"redist_base_url": starlark.String(""), "redist_platform": starlark.String("linux-x86_64"),
		"redist_components": starlark.NewList([]starlark.Value{
			starlark.String("cuda_cccl"), starlark.String("cuda_cudart"), starlark.String("cuda_nvcc"), starlark.String("libcurand"),
		}),
		"components":    starlark.NewDict(0),
		"site_packages": starlark.String(""),
	}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = starlark.String(kv[i+1])
	}
	return a
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// cuda13IncludeNames is the recorded listing of CUDA 13.0's
// targets/x86_64-linux/include (layout.txt, after the find listing of the
// installation's top two levels, before include/cccl's).
func cuda13IncludeNames(t *testing.T) []string {
	t.Helper()
	var names []string
	in := false
	for _, l := range readLines(t, "cuda13/layout.txt") {
		switch {
		case l == "/usr/local/cuda/targets/x86_64-linux/lib":
			in = true
		case strings.HasPrefix(l, "/usr/local/cuda/include/cccl/"):
			return names
		case in:
			names = append(names, l)
		}
	}
	t.Fatal("layout.txt: no include listing")
	return nil
}

// cuda13IncludeDirs are the directories among those names (the listing is
// of names only).
var cuda13IncludeDirs = map[string]bool{"cccl": true, "cooperative_groups": true, "crt": true, "nv": true, "nvtx3": true, "Openacc": true, "Openmp": true}

// cuda13Headers is an include directory of CUDA 13.0: the recorded names,
// and in cccl/ a real file of each of Thrust, CUB, libcu++ and nv/.
func cuda13Headers(t *testing.T, include string) []string {
	var out []string
	for _, n := range cuda13IncludeNames(t) {
		switch {
		case n == "cuda.h":
			out = append(out, include+"/cuda.h=#define CUDA_VERSION 13000\n")
		case cuda13IncludeDirs[n]:
			out = append(out, include+"/"+n+"/")
		default:
			out = append(out, include+"/"+n)
		}
	}
	return append(out, include+"/cccl/thrust/version.h", include+"/cccl/cub/version.cuh",
		include+"/cccl/cuda/std/version", include+"/cccl/nv/target")
}

// lsEntry is one line of `ls -la`: a file, a link (and its target) or a directory.
type lsEntry struct {
	name, link string
	dir        bool
}

func cuda13Lib64(t *testing.T) []lsEntry {
	t.Helper()
	var out []lsEntry
	for _, l := range readLines(t, "cuda13/lib64.txt") {
		f := strings.Fields(l)
		if len(f) < 9 || f[8] == "." || f[8] == ".." {
			continue
		}
		e := lsEntry{name: f[8], dir: l[0] == 'd'}
		if l[0] == 'l' && len(f) == 11 {
			e.link = f[10]
		}
		out = append(out, e)
	}
	if len(out) < 100 {
		t.Fatalf("lib64.txt: %d entries", len(out))
	}
	return out
}

// cuda13Sonames maps each real library file of lib64.txt to its soname: the
// versioned link that points at it (libcublas.so.13 -> libcublas.so.13.1.0.3).
func cuda13Sonames(t *testing.T) map[string]string {
	sonames := map[string]string{}
	for _, e := range cuda13Lib64(t) {
		if e.link != "" && !strings.HasSuffix(e.name, ".so") && !strings.Contains(e.link, "/") {
			sonames[e.link] = e.name
		}
	}
	return sonames
}

// ptxasScript prints the GPU names CUDA 13.0's ptxas --help allows.
func ptxasScript(t *testing.T) string {
	names := readLines(t, "cuda13/ptxas-gpu-names.txt")
	return "#!/bin/sh\necho \"Allowed values for this option: '" + strings.Join(names, "','") + "'.\"\n"
}

// cuda13Toolkit lays out /usr/local/cuda of CUDA 13.0 under base and returns it.
func cuda13Toolkit(t *testing.T, base string) string {
	t.Helper()
	top := base + "/cuda-13.0"
	entries := cuda13Headers(t, "targets/x86_64-linux/include")
	sonames := cuda13Sonames(t)
	for _, e := range cuda13Lib64(t) {
		p := "targets/x86_64-linux/lib/" + e.name
		switch {
		case e.dir:
			entries = append(entries, p+"/")
		case e.link != "":
			entries = append(entries, p+"->"+e.link)
		case sonames[e.name] != "":
			entries = append(entries, p+"=SONAME "+sonames[e.name]+"\n")
		default:
			entries = append(entries, p)
		}
	}
	entries = append(entries,
		"include->targets/x86_64-linux/include", "lib64->targets/x86_64-linux/lib",
		"bin/ptxas="+ptxasScript(t), "bin/fatbinary", "bin/nvlink", "bin/nvcc",
		"nvvm/libdevice/libdevice.10.bc")
	tree(t, top, entries...)
	tree(t, base, "cuda->cuda-13.0")
	return base + "/cuda"
}

func wantLibrary(t *testing.T, targets map[string]target, name string, srcs ...string) {
	t.Helper()
	tg, ok := targets[name]
	if !ok || tg.rule != "cc_library" && tg.rule != "offload_device_code_library" {
		t.Errorf(":%s is %s %s, want a library: %s", name, tg.rule, tg.str("error"), tg.attrs["error"])
		return
	}
	if tg.rule == "cc_library" && !slices.Equal(tg.list("srcs"), srcs) {
		t.Errorf(":%s srcs %q, want %q", name, tg.list("srcs"), srcs)
	}
}

func wantMissing(t *testing.T, targets map[string]target, name string, parts ...string) {
	t.Helper()
	tg := targets[name]
	if tg.rule != "offload_missing_library" {
		t.Errorf(":%s is a %s, want offload_missing_library", name, tg.rule)
		return
	}
	for _, p := range parts {
		if !strings.Contains(tg.str("error"), p) {
			t.Errorf(":%s error %q lacks %q", name, tg.str("error"), p)
		}
	}
}

func wantHeaders(t *testing.T, targets map[string]target, name string, headers ...string) {
	t.Helper()
	got := targets[name].list("hdrs")
	if targets[name].rule == "offload_cuda" {
		got = targets[name].list("headers")
	}
	for _, h := range headers {
		if !slices.Contains(got, h) {
			t.Errorf(":%s hdrs lack %s (have %d files: %.200q)", name, h, len(got), got)
		}
	}
}

// The shared libraries every CUDA 12/13 layout gives, as the cc_library
// srcs each CUDA 13 layout must produce (the sonames, .13 for cuBLAS).
var cuda13Shared = map[string][]string{
	"cudart":    {"lib64/libcudart.so.13"},
	"cublasLt":  {"lib64/libcublasLt.so.13"},
	"cublas":    {"lib64/libcublas.so.13"},
	"cufft":     {"lib64/libcufft.so.12"},
	"curand":    {"lib64/libcurand.so.10"},
	"cusparse":  {"lib64/libcusparse.so.12"},
	"cusolver":  {"lib64/libcusolver.so.12"},
	"nvrtc":     {"lib64/libnvrtc.so.13", "lib64/libnvrtc-builtins.so.13.0"},
	"nvjitlink": {"lib64/libnvJitLink.so.13"},
}

func checkCuda13Common(t *testing.T, targets map[string]target) {
	t.Helper()
	cuda := targets["cuda"]
	if cuda.rule != "offload_cuda" || cuda.str("version") != "13.0" {
		t.Fatalf(":cuda is %s version %q, want offload_cuda 13.0", cuda.rule, cuda.str("version"))
	}
	archs := cuda.list("archs")
	for _, a := range []string{"sm_100", "sm_100a", "sm_100f", "sm_103a", "sm_110", "sm_120", "sm_120a", "sm_121", "compute_121f", "sm_75"} {
		if !slices.Contains(archs, a) {
			t.Errorf(":cuda archs lack %s: %q", a, archs)
		}
	}
	if slices.Contains(archs, "sm_70") || slices.Contains(archs, "sm_101") {
		t.Errorf(":cuda archs %q hold what CUDA 13.0's ptxas does not build", archs)
	}
	for name, srcs := range cuda13Shared {
		wantLibrary(t, targets, name, srcs...)
	}
	// Thrust, CUB and libcu++ from include/cccl, where CUDA 13 keeps them.
	wantLibrary(t, targets, "thrust")
	wantLibrary(t, targets, "cub")
	wantLibrary(t, targets, "libcudacxx")
	wantHeaders(t, targets, "thrust", "include/thrust/version.h")
	wantHeaders(t, targets, "cub", "include/cub/version.cuh")
	wantHeaders(t, targets, "libcudacxx", "include/cuda/std/version", "include/nv/target")
	wantHeaders(t, targets, "cuda", "include/thrust/version.h", "include/cuda_runtime.h", "include/cuda.h")
	hdrs := targets["cuda_headers"].list("hdrs")
	if !slices.Contains(hdrs, "include/cuda_runtime.h") || slices.ContainsFunc(hdrs, func(h string) bool { return strings.HasPrefix(h, "include/thrust/") }) {
		t.Errorf(":cuda_headers hdrs %.300q: want the runtime's headers and no Thrust", hdrs)
	}
}

// CUDA 13.0 as NVIDIA installs it: /usr/local/cuda -> cuda-13.0, include
// and lib64 links into targets/x86_64-linux, CCCL in include/cccl, sonames
// .13, no libcufft_static_nocallback.a.
func TestCuda13Toolkit(t *testing.T) {
	cuda := cuda13Toolkit(t, t.TempDir())
	c := newRepoCtx(t, "offload_cuda", cudaAttrs("path", cuda))
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	checkCuda13Common(t, targets)
	wantLibrary(t, targets, "cudart_static", "lib64/libcudart_static.a")
	wantLibrary(t, targets, "cublas_static", "lib64/libcublas_static.a")
	wantLibrary(t, targets, "cusolver_static", "lib64/libcusolver_static.a", "lib64/libcusolver_lapack_static.a", "lib64/libmetis_static.a")
	wantMissing(t, targets, "cufft_static_nocallback", "CUDA 13.0 ("+cuda+")", "missing: libcufft_static_nocallback.a", "removed in CUDA 13.0", "use :cufft")
	if got := targets["cuda"].list("cudart_static"); !slices.Equal(got, []string{"lib64/libcudart_static.a"}) {
		t.Errorf(":cuda cudart_static %q", got)
	}
	if got := targets["cuda"].str("ptxas"); got != "bin/ptxas" {
		t.Errorf(":cuda ptxas %q", got)
	}
}

// cu13Wheels lays out site-packages/nvidia/cu13 as the CUDA 13 wheels do
// (one include and lib for all of them; the recorded machine's torch
// environment had those two) with bin/ptxas and nvvm/ of nvidia-cuda-nvcc,
// and nvidia/cudnn beside it. lib/ holds each library under its soname, the
// one name a wheel ships: the sonames of the toolkit's lib64 listing.
func cu13Wheels(t *testing.T, cccl bool) string {
	t.Helper()
	site := t.TempDir()
	var entries []string
	for _, h := range cuda13Headers(t, "nvidia/cu13/include") {
		if cccl || !strings.Contains(h, "/include/cccl/") {
			entries = append(entries, h)
		}
	}
	for _, soname := range cuda13Sonames(t) {
		if strings.HasPrefix(soname, "lib") {
			entries = append(entries, "nvidia/cu13/lib/"+soname+"=SONAME "+soname+"\n")
		}
	}
	entries = append(entries, "nvidia/cu13/bin/ptxas="+ptxasScript(t), "nvidia/cu13/nvvm/libdevice/libdevice.10.bc",
		"nvidia/cudnn/include/cudnn.h", "nvidia/cudnn/lib/libcudnn.so.9")
	tree(t, site, entries...)
	return site
}

func TestCuda13PipWheels(t *testing.T) {
	c := newRepoCtx(t, "offload_cuda", cudaAttrs("site_packages", cu13Wheels(t, true)))
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	checkCuda13Common(t, targets)
	wantMissing(t, targets, "cudart_static", "missing: libcudart_static.a", "pip wheels have no static libraries")
	if got := targets["cuda"].list("cudart_shared"); !slices.Equal(got, []string{"lib64/libcudart.so", "lib64/libcudart.so.13"}) {
		t.Errorf(":cuda cudart_shared %q: want the soname and the link-time name", got)
	}
	if slices.ContainsFunc(targets["cuda_headers"].list("hdrs"), func(h string) bool { return strings.Contains(h, "cudnn") }) {
		t.Error("cuDNN's wheel reached :cuda_headers")
	}
}

// Without nvidia-cuda-cccl, Thrust fails at analysis naming the package.
func TestCuda13PipWheelsWithoutCCCL(t *testing.T) {
	c := newRepoCtx(t, "offload_cuda", cudaAttrs("site_packages", cu13Wheels(t, false)))
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	wantMissing(t, targets, "thrust", "CUDA 13.0 (pip wheels (", "has no thrust", "pip install nvidia-cuda-cccl")
	wantLibrary(t, targets, "cublas", "lib64/libcublas.so.13")
}

// CUDA 12 from pip: one directory per wheel under nvidia/ (nvidia-*-cu12),
// each library under its .12 soname; the CCCL wheel's headers at its include/.
func TestCuda12PipWheels(t *testing.T) {
	site := t.TempDir()
	tree(t, site,
		"nvidia/cuda_runtime/include/cuda.h=#define CUDA_VERSION 12040\n",
		"nvidia/cuda_runtime/include/cuda_runtime.h", "nvidia/cuda_runtime/include/cuda_runtime_api.h",
		"nvidia/cuda_runtime/lib/libcudart.so.12=SONAME libcudart.so.12\n",
		"nvidia/cuda_nvcc/bin/ptxas="+ptxasScript(t), "nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc",
		"nvidia/cuda_nvcc/include/crt/host_defines.h",
		"nvidia/cuda_cccl/include/thrust/version.h", "nvidia/cuda_cccl/include/cub/version.cuh",
		"nvidia/cuda_cccl/include/cuda/std/version", "nvidia/cuda_cccl/include/nv/target",
		"nvidia/cublas/include/cublas.h", "nvidia/cublas/include/cublas_api.h", "nvidia/cublas/include/cublas_v2.h",
		"nvidia/cublas/include/cublasXt.h", "nvidia/cublas/include/cublasLt.h",
		"nvidia/cublas/lib/libcublas.so.12=SONAME libcublas.so.12\n", "nvidia/cublas/lib/libcublasLt.so.12=SONAME libcublasLt.so.12\n",
		"nvidia/nvjitlink/include/nvJitLink.h", "nvidia/nvjitlink/lib/libnvJitLink.so.12=SONAME libnvJitLink.so.12\n",
		"nvidia/nccl/include/nccl.h")
	c := newRepoCtx(t, "offload_cuda", cudaAttrs("site_packages", site))
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	if got := targets["cuda"].str("version"); got != "12.4" {
		t.Errorf(":cuda version %q", got)
	}
	wantLibrary(t, targets, "cudart", "lib64/libcudart.so.12")
	wantLibrary(t, targets, "cublas", "lib64/libcublas.so.12")
	wantLibrary(t, targets, "nvjitlink", "lib64/libnvJitLink.so.12")
	wantLibrary(t, targets, "thrust")
	wantHeaders(t, targets, "thrust", "include/thrust/version.h")
	wantHeaders(t, targets, "cuda", "include/crt/host_defines.h", "include/cuda_runtime.h")
	wantMissing(t, targets, "cufft", "CUDA 12.4 (pip wheels (", "missing: include/cufft.h, libcufft.so", "pip install nvidia-cufft-cu12")
	wantMissing(t, targets, "cusolver", "pip install nvidia-cusolver-cu12")
	if got := targets["cuda"].str("ptxas"); got != "bin/ptxas" {
		t.Errorf(":cuda ptxas %q (nvidia-cuda-nvcc-cu12's)", got)
	}
}

// What the attribute refuses, before linking anything.
func TestCudaPipRefusals(t *testing.T) {
	empty := t.TempDir()
	other := t.TempDir()
	tree(t, other, "nvidia/cudnn/include/cudnn.h")
	for _, c := range []struct {
		attrs []string
		want  string
	}{
		{[]string{"site_packages", empty}, "has no nvidia/ directory; install the wheels there (pip install nvidia-cuda-runtime"},
		{[]string{"site_packages", other}, "holds none of CUDA's wheels (cu13, cuda_runtime, "},
		{[]string{"site_packages", other, "path", "/usr/local/cuda"}, "give one of site_packages (pip wheels), path, urls"},
	} {
		ctx := newRepoCtx(t, "offload_cuda", cudaAttrs(c.attrs...))
		if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", ctx); !strings.Contains(msg, c.want) {
			t.Errorf("%q: failure %q, want one with %q", c.attrs, msg, c.want)
		}
	}
}

// tarDir writes dir's files into an uncompressed tar whose names start with prefix/.
func tarDir(t *testing.T, dir, prefix, out string) string {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := prefix + "/" + filepath.ToSlash(rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return w.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target, Mode: 0o777})
		case fi.IsDir():
			return w.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := w.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: int64(fi.Mode() & 0o777), Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = os.WriteFile(out, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// NVIDIA's redistributable CUDA 13.0 as redistrib_13.0.x.json lists it: one
// archive per component, cuda_cccl's headers under include/cccl.
func TestCuda13Redist(t *testing.T) {
	stage, redist := t.TempDir(), t.TempDir()
	sonames := cuda13Sonames(t)
	lib := func(prefix string) []string {
		var out []string
		for real, soname := range sonames {
			if strings.HasPrefix(soname, prefix+".so") {
				out = append(out, "lib/"+real+"=SONAME "+soname+"\n", "lib/"+soname+"->"+real, "lib/"+prefix+".so->"+soname)
			}
		}
		return out
	}
	var cudart, cccl []string
	for _, h := range cuda13Headers(t, "include") {
		switch {
		case strings.HasPrefix(h, "include/cccl/"):
			cccl = append(cccl, h)
		case strings.HasPrefix(h, "include/cublas"), strings.HasPrefix(h, "include/crt"):
		default:
			cudart = append(cudart, h)
		}
	}
	components := map[string][]string{
		"cuda_cccl":   cccl,
		"cuda_cudart": append(append(cudart, lib("libcudart")...), "lib/libcudart_static.a"),
		"cuda_nvcc":   {"bin/ptxas=" + ptxasScript(t), "bin/nvlink", "bin/fatbinary"},
		"cuda_crt":    {"include/crt/host_defines.h"},
		"libnvvm":     {"nvvm/libdevice/libdevice.10.bc", "nvvm/bin/cicc"},
		"libcublas":   append(append([]string{"include/cublas.h", "include/cublas_api.h", "include/cublas_v2.h", "include/cublasXt.h", "include/cublasLt.h"}, lib("libcublas")...), lib("libcublasLt")...),
	}
	manifest := `{"release_label": "13.0.2"`
	for _, name := range []string{"cuda_cccl", "cuda_crt", "cuda_cudart", "cuda_nvcc", "libcublas", "libnvvm"} {
		base := name + "-linux-x86_64-13.0.1-archive"
		tree(t, filepath.Join(stage, base), components[name]...)
		rel := name + "/linux-x86_64/" + base + ".tar"
		if err := os.MkdirAll(filepath.Join(redist, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		sum := tarDir(t, filepath.Join(stage, base), base, filepath.Join(redist, rel))
		manifest += fmt.Sprintf(`, %q: {"name": %q, "linux-x86_64": {"relative_path": %q, "sha256": %q}}`, name, name, rel, sum)
	}
	manifestPath := filepath.Join(redist, "redistrib_13.0.2.json")
	if err := os.WriteFile(manifestPath, []byte(manifest+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(manifest + "}"))
	attrs := cudaAttrs("redist_json", "file://"+manifestPath, "redist_json_sha256", hex.EncodeToString(sum[:]))
	attrs["redist_components"] = starlark.NewList([]starlark.Value{starlark.String("cuda_cccl"), starlark.String("cuda_cudart"), starlark.String("cuda_nvcc"), starlark.String("libcublas")})
	c := newRepoCtx(t, "offload_cuda", attrs)
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	if got := targets["cuda"].str("version"); got != "13.0" {
		t.Errorf(":cuda version %q", got)
	}
	wantLibrary(t, targets, "cudart", "lib64/libcudart.so.13")
	wantLibrary(t, targets, "cublas", "lib64/libcublas.so.13")
	wantLibrary(t, targets, "thrust")
	wantHeaders(t, targets, "thrust", "include/thrust/version.h")
	wantMissing(t, targets, "cufft", "CUDA 13.0 (NVIDIA redistributables", `add "libcufft" to redist_components`)
	// cuda_nvcc brought CUDA 13's cuda_crt and libnvvm along.
	wantHeaders(t, targets, "cuda", "include/crt/host_defines.h")
	if got := targets["cuda"].list("libdevice"); !slices.Equal(got, []string{"nvvm/libdevice/libdevice.10.bc"}) {
		t.Errorf(":cuda libdevice %q", got)
	}
}

// The same CUDA 13.0 tree as one archive (urls, sha256, strip_prefix), as
// a mirror of /usr/local/cuda-13.0 would hold it: the links inside it
// (include, lib64) relative, as NVIDIA's are.
func TestCuda13Archive(t *testing.T) {
	base := t.TempDir()
	cuda13Toolkit(t, base)
	archive := filepath.Join(t.TempDir(), "cuda-13.0.88-linux-x86_64.tar")
	sum := tarDir(t, filepath.Join(base, "cuda-13.0"), "cuda-13.0", archive)
	attrs := cudaAttrs("sha256", sum, "strip_prefix", "cuda-13.0")
	attrs["urls"] = starlark.NewList([]starlark.Value{starlark.String("file://" + archive)})
	c := newRepoCtx(t, "offload_cuda", attrs)
	if msg := runRepositoryRule(t, "rules/sdk/cuda.bzl", "_offload_cuda_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	checkCuda13Common(t, targets)
	if from, err := os.Readlink(filepath.Join(c.out, "include", "thrust")); err != nil || !strings.HasPrefix(from, filepath.Join(c.out, "_archive")) {
		t.Errorf("include/thrust links to %q (%v), want into the extracted archive", from, err)
	}
}
