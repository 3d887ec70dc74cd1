package wrapper

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Runtime checks: the registration code runs against stub runtimes that
// print every call they receive. x86-64 Linux only.

// stubFatbinRuntime implements the CUDA and HIP registration entry points.
const stubFatbinRuntime = `#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
struct fatbin_wrapper { int32_t magic, version; const unsigned char *data; void *reserved; };
static int token;
#define OK(h) ((h) == (void **)&token)
#define RT(P) \
void **P##RegisterFatBinary(void *w) { const struct fatbin_wrapper *f = w; \
  printf(#P "RegisterFatBinary magic=%#x version=%d data=%.6s reserved=%p\n", f->magic, f->version, f->data, f->reserved); \
  return (void **)&token; } \
void P##UnregisterFatBinary(void **h) { printf(#P "UnregisterFatBinary h=%d\n", OK(h)); } \
int P##RegisterFunction(void **h, const void *fun, char *dev, const char *name, int limit, void *a, void *b, void *c, void *d, int *e) { \
  printf(#P "RegisterFunction h=%d fun=%d %s %s limit=%d nulls=%d\n", OK(h), fun != 0, dev, name, limit, !a && !b && !c && !d && !e); return 0; } \
void P##RegisterVar(void **h, char *var, char *dev, const char *name, int ext, size_t size, int constant, int global) { \
  printf(#P "RegisterVar h=%d var=%d %s %s ext=%d size=%zu constant=%d global=%d\n", OK(h), var != 0, dev, name, ext, size, constant, global); } \
void P##RegisterManagedVar(void **h, void **shadow, char *var, const char *name, size_t size, unsigned align) { \
  printf(#P "RegisterManagedVar h=%d shadow=%d var=%d %s size=%zu align=%u\n", OK(h), shadow != 0, var != 0, name, size, align); } \
void P##RegisterSurface(void **h, const void *var, const void **dev, const char *name, int dim, int ext) { \
  printf(#P "RegisterSurface h=%d var=%d %s %s dim=%d ext=%d\n", OK(h), var != 0, (const char *)dev, name, dim, ext); } \
void P##RegisterTexture(void **h, const void *var, const void **dev, const char *name, int dim, int norm, int ext) { \
  printf(#P "RegisterTexture h=%d var=%d %s %s dim=%d norm=%d ext=%d\n", OK(h), var != 0, (const char *)dev, name, dim, norm, ext); }
RT(__cuda)
RT(__hip)
void __cudaRegisterFatBinaryEnd(void **h) { printf("__cudaRegisterFatBinaryEnd h=%d\n", OK(h)); }
int cudaLaunchKernel(void) { return 0; }
int cudaSetupArgument(void) { return 0; }
int cudaLaunch(void) { return 0; }
int __cudaPopCallConfiguration(void) { return 0; }
int __cudaPushCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }
int __hipPopCallConfiguration(void) { return 0; }
int __hipPushCallConfiguration(void) { return 0; }
int main(void) { printf("main\n"); return 0; }
`

// entriesLLVM20 are hand-made LLVM >= 20 entries of every type, for CUDA
// (kind 2), HIP (4) and OpenMP (1), all in the one shared section.
const entriesLLVM20 = `#include <stdint.h>
struct e { uint64_t reserved; uint16_t version, kind; uint32_t flags; void *addr; const char *name; uint64_t size, data; void *aux; };
int v_ext_const, v_managed, v_shadow, v_surf, v_tex, v_odd, f_kernel;
#define E(id, kind, flags, addr, name, size, data, aux) \
  __attribute__((section("llvm_offload_entries"), used, aligned(8))) const struct e id = {0, 1, kind, flags, addr, name, size, data, aux};
E(c0, 2, 0, &f_kernel, "cuda_kernel", 0, 0, 0)
E(c1, 2, 8 | 16, &v_ext_const, "cuda_ext_const", 4, 0, 0)
E(c2, 2, 1, &v_managed, "cuda_managed", 4, 16, &v_shadow)
E(c3, 2, 2 | 8, &v_surf, "cuda_surface", 8, 2, 0)
E(c4, 2, 3 | 32, &v_tex, "cuda_texture", 8, 3, 0)
E(c5, 2, 5, &v_odd, "cuda_type5", 8, 0, 0)
E(h0, 4, 0, &f_kernel, "hip_kernel", 0, 0, 0)
E(h1, 4, 8 | 16, &v_ext_const, "hip_ext_const", 4, 0, 0)
E(h2, 4, 1, &v_managed, "hip_managed", 4, 16, &v_shadow)
E(h3, 4, 2 | 8, &v_surf, "hip_surface", 8, 2, 0)
E(h4, 4, 3 | 32, &v_tex, "hip_texture", 8, 3, 0)
E(o0, 1, 0, &f_kernel, "omp_region", 0, 0, 0)
`

// entriesLegacy are hand-made LLVM <= 19 entries; each kind has its own
// section.
const entriesLegacy = `#include <stdint.h>
#include <stddef.h>
struct e { void *addr; const char *name; size_t size; int32_t flags, data; };
int v_ext_const, v_managed, v_surf, v_tex, f_kernel;
#define E(id, sec, flags, addr, name, size, data) \
  __attribute__((section(sec), used, aligned(8))) const struct e id = {addr, name, size, flags, data};
E(c0, "cuda_offloading_entries", 0, &f_kernel, "cuda_kernel", 0, 0)
E(c1, "cuda_offloading_entries", 8 | 16, &v_ext_const, "cuda_ext_const", 4, 0)
E(c2, "cuda_offloading_entries", 1, &v_managed, "cuda_managed", 4, 0)
E(c3, "cuda_offloading_entries", 2 | 8, &v_surf, "cuda_surface", 8, 2)
E(h0, "hip_offloading_entries", 0, &f_kernel, "hip_kernel", 0, 0)
E(h1, "hip_offloading_entries", 8 | 16, &v_ext_const, "hip_ext_const", 4, 0)
E(h2, "hip_offloading_entries", 1, &v_managed, "hip_managed", 4, 0)
E(h3, "hip_offloading_entries", 2 | 8, &v_surf, "hip_surface", 8, 2)
E(h4, "hip_offloading_entries", 3 | 32, &v_tex, "hip_texture", 8, 3)
`

// deviceSource declares kernels and variables the way the CUDA and HIP
// headers do, so clang-22 emits real offload entries for them.
const deviceSource = `#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
typedef struct dim3 { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" int cudaLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
__device__ int dev_var;
__constant__ float const_tab[16];
extern "C" __global__ void kern(int *p) { }
__global__ void kern2(float x) { }
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runLinked links objs with gcc and returns what the program prints.
func runLinked(t *testing.T, dir, exe string, objs ...string) string {
	t.Helper()
	llvmtest.Run(t, dir, "gcc", append([]string{"-o", exe}, objs...)...)
	return llvmtest.Run(t, dir, "./"+exe)
}

// TestFatbinRuntimeMatchesLLVM runs CUDA and HIP registration (LLVM20 ABI)
// over host entries from clang-22 and hand-made ones of every type and
// kind. LLVM's own wrapper, compiled by clang-22, is the reference: every
// form of ours must make the same calls in the same order.
func TestFatbinRuntimeMatchesLLVM(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc", llvmtest.Oracle("clang"), llvmtest.Oracle("llvm-offload-wrapper"))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"rt.c": stubFatbinRuntime, "entries.c": entriesLLVM20, "dev.cu": deviceSource})
	llvmtest.Run(t, dir, "gcc", "-c", "rt.c", "entries.c")
	for _, c := range []struct {
		kind Kind
		in   []byte
	}{{CUDA, fatbinFixture()}, {HIP, bundleVector()}} {
		k := c.kind.String()
		llvmtest.Run(t, dir, llvmtest.Oracle("clang"), "-x", k, "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nogpuinc", "-nocudalib",
			"-nogpulib", "--cuda-host-only", "-c", "dev.cu", "-o", "host-"+k+".o")
		img := fileImage(t, dir, k+".img", c.in)
		llvmtest.Run(t, dir, llvmtest.Oracle("llvm-offload-wrapper"), "--kind="+k, "-o", "ref-"+k+".bc", k+".img")
		llvmtest.Run(t, dir, llvmtest.Oracle("clang"), "-c", "ref-"+k+".bc", "-o", "ref-"+k+".o")
		want := runLinked(t, dir, "ref-"+k, "host-"+k+".o", "entries.o", "rt.o", "ref-"+k+".o")
		for _, line := range []string{"RegisterFunction h=1 fun=1 kern kern", "RegisterVar h=1 var=1 const_tab const_tab ext=0 size=64 constant=1",
			"RegisterVar h=1 var=1 " + k + "_ext_const " + k + "_ext_const ext=1 size=4 constant=1"} {
			if !strings.Contains(want, line) {
				t.Fatalf("%s: the reference run lacks %q; the fixture is broken:\n%s", k, line, want)
			}
		}
		for form, obj := range buildForms(t, dir, k, []Image{img}, Options{Kind: c.kind}) {
			got := runLinked(t, dir, k+"-"+strings.ReplaceAll(form, "/", "-"), "host-"+k+".o", "entries.o", "rt.o", obj)
			if got != want {
				t.Errorf("%s %s: calls differ from LLVM's wrapper\nLLVM:\n%s\nours:\n%s", k, form, want, got)
			}
		}
	}
}

// TestFatbinRuntimeLegacy runs CUDA and HIP registration over hand-made
// LLVM <= 19 entries. The expected calls follow LLVM 19's wrapper: kernels
// and variables; managed variables are not registered; surfaces and
// textures only for HIP.
func TestFatbinRuntimeLegacy(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"rt.c": stubFatbinRuntime, "entries.c": entriesLegacy})
	llvmtest.Run(t, dir, "gcc", "-c", "rt.c", "entries.c")
	want := map[Kind]string{
		CUDA: `__cudaRegisterFatBinary magic=0x466243b1 version=1 data=P\xedU\xba\x01 reserved=(nil)
__cudaRegisterFunction h=1 fun=1 cuda_kernel cuda_kernel limit=-1 nulls=1
__cudaRegisterVar h=1 var=1 cuda_ext_const cuda_ext_const ext=1 size=4 constant=1 global=0
__cudaRegisterFatBinaryEnd h=1
main
__cudaUnregisterFatBinary h=1
`,
		HIP: `__hipRegisterFatBinary magic=0x48495046 version=1 data=__CLAN reserved=(nil)
__hipRegisterFunction h=1 fun=1 hip_kernel hip_kernel limit=-1 nulls=1
__hipRegisterVar h=1 var=1 hip_ext_const hip_ext_const ext=1 size=4 constant=1 global=0
__hipRegisterSurface h=1 var=1 hip_surface hip_surface dim=2 ext=1
__hipRegisterTexture h=1 var=1 hip_texture hip_texture dim=3 norm=1 ext=0
main
__hipUnregisterFatBinary h=1
`,
	}
	for _, c := range []struct {
		kind Kind
		in   []byte
	}{{CUDA, fatbinFixture()}, {HIP, bundleVector()}} {
		k := c.kind.String()
		img := fileImage(t, dir, k+".img", c.in)
		exp := strings.ReplaceAll(want[c.kind], `P\xedU\xba\x01`, "P\xedU\xba\x01")
		for form, obj := range buildForms(t, dir, k, []Image{img}, Options{Kind: c.kind, ABI: Legacy}) {
			got := runLinked(t, dir, k+"-"+strings.ReplaceAll(form, "/", "-"), "entries.o", "rt.o", obj)
			if got != exp {
				t.Errorf("%s %s legacy:\ngot:\n%q\nwant:\n%q", k, form, got, exp)
			}
		}
	}
}

// stubOpenMPRuntime prints the descriptor passed to __tgt_register_lib and,
// with -DWITH_INFO, the image infos of the legacy ABI.
const stubOpenMPRuntime = `#include <stdio.h>
#include <stdint.h>
struct img { unsigned char *start, *end; char *eb, *ee; };
struct desc { int32_t n; struct img *imgs; char *hb, *he; };
struct info { int32_t version, number, count; const char *arch, *opts; };
void __tgt_register_lib(struct desc *d) {
  printf("register_lib n=%d entries=%ld\n", d->n, (long)(d->he - d->hb) / ENTRY_SIZE);
  for (int i = 0; i < d->n; i++) {
    struct img *m = &d->imgs[i];
    printf("image %d size=%ld head=%02x%02x%02x%02x same_entries=%d\n", i, (long)(m->end - m->start),
           m->start[0], m->start[1], m->start[2], m->start[3], m->eb == d->hb && m->ee == d->he);
  }
}
void __tgt_unregister_lib(struct desc *d) { printf("unregister_lib n=%d\n", d->n); }
#ifdef WITH_INFO
void __tgt_register_image_info(struct info *i) {
  printf("image_info version=%d number=%d count=%d arch=%s opts=%s\n", i->version, i->number, i->count, i->arch, i->opts ? i->opts : "null");
}
#endif
int main(void) { printf("main\n"); return 0; }
`

// ompEntries are two hand-made OpenMP host entries per ABI.
const ompEntries = `#include <stdint.h>
#include <stddef.h>
#ifdef LEGACY
struct e { void *addr; const char *name; size_t size; int32_t flags, data; };
#define E(id, name) __attribute__((section("omp_offloading_entries"), used, aligned(8))) const struct e id = {(void *)&id, name, 0, 0, 0};
#else
struct e { uint64_t reserved; uint16_t version, kind; uint32_t flags; void *addr; const char *name; uint64_t size, data; void *aux; };
#define E(id, name) __attribute__((section("llvm_offload_entries"), used, aligned(8))) const struct e id = {0, 1, 1, 0, (void *)&id, name, 0, 0, 0};
#endif
E(r0, "region0")
E(r1, "region1")
`

// TestOpenMPRuntimeStub checks the descriptor every form builds: two images
// (an OffloadBinary, registered by the 4-byte image inside it, and a raw
// ELF file), the host entry bounds, image infos in the legacy ABI (called
// only when the runtime has __tgt_register_image_info) and unregistration
// after main.
func TestOpenMPRuntimeStub(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc")
	dir := t.TempDir()
	raw := elfFixture(t)
	writeFiles(t, dir, map[string]string{"rt.c": stubOpenMPRuntime, "entries.c": ompEntries})
	images := fmt.Sprintf("image 0 size=4 head=41414141 same_entries=1\nimage 1 size=%d head=7f454c46 same_entries=1\n", len(raw))
	for _, c := range []struct {
		abi      EntryABI
		info     bool
		wantHead string
	}{
		{LLVM20, false, ""},
		{Legacy, false, ""},
		{Legacy, true, "image_info version=1 number=0 count=2 arch=gfx906 opts=null\nimage_info version=1 number=1 count=2 arch=gfx90a:xnack+ opts=null\n"},
	} {
		tag := fmt.Sprintf("omp-%s-%v", c.abi, c.info)
		defs := []string{"-DENTRY_SIZE=56"}
		if c.abi == Legacy {
			defs = []string{"-DENTRY_SIZE=32", "-DLEGACY"}
		}
		if c.info {
			defs = append(defs, "-DWITH_INFO")
		}
		llvmtest.Run(t, dir, "gcc", append(defs, "-c", "rt.c", "-o", tag+"-rt.o")...)
		llvmtest.Run(t, dir, "gcc", append(defs, "-c", "entries.c", "-o", tag+"-entries.o")...)
		a, b := fileImage(t, dir, "ob.bin", offloadBinaryVector()), fileImage(t, dir, "raw.o", raw)
		if c.abi == Legacy {
			a.Arch, b.Arch = "gfx906", "gfx90a:xnack+"
		}
		want := c.wantHead + "register_lib n=2 entries=2\n" + images + "main\nunregister_lib n=2\n"
		forms := buildForms(t, dir, tag, []Image{a, b}, Options{Kind: OpenMP, ABI: c.abi})
		names := make([]string, 0, len(forms))
		for f := range forms {
			names = append(names, f)
		}
		sort.Strings(names)
		for _, form := range names {
			got := runLinked(t, dir, tag+"-"+strings.ReplaceAll(form, "/", "-"), tag+"-entries.o", tag+"-rt.o", forms[form])
			if got != want {
				t.Errorf("%s %s:\ngot:\n%s\nwant:\n%s", tag, form, got, want)
			}
		}
	}
}

// TestFatbinNoEntriesWarns: a C registration linked into a program whose
// host objects have no offload entries of its kind (host code compiled
// without -fgpu-rdc) says so on stderr at start-up; with entries it is
// silent. Entries of another kind do not count.
func TestFatbinNoEntriesWarns(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"rt.c": stubFatbinRuntime, "entries.c": entriesLLVM20, "omp.c": ompEntries})
	llvmtest.Run(t, dir, "gcc", "-c", "rt.c", "entries.c", "omp.c")
	for _, c := range []struct {
		kind Kind
		in   []byte
	}{{CUDA, fatbinFixture()}, {HIP, bundleVector()}} {
		k := c.kind.String()
		img := fileImage(t, dir, k+".img", c.in)
		writeFiles(t, dir, map[string]string{k + ".c": string(emit(t, "c", []Image{img}, Options{Kind: c.kind}))})
		llvmtest.Run(t, dir, "gcc", "-c", "-O2", "-Wall", "-Wextra", "-Werror", "-o", k+".o", k+".c")
		for _, run := range []struct {
			objs []string
			warn bool
		}{
			{[]string{"rt.o", k + ".o"}, true},
			{[]string{"rt.o", "omp.o", k + ".o"}, true},
			{[]string{"rt.o", "entries.o", k + ".o"}, false},
		} {
			exe := k + "-" + strings.Join(run.objs, "-")
			llvmtest.Run(t, dir, "gcc", append([]string{"-o", exe}, run.objs...)...)
			r := llvmtest.RunResult(t, dir, nil, "./"+exe)
			warned := strings.Contains(r.Stderr, "offload registration: a "+k+" fat binary is registered with no kernel or variable")
			if r.Code != 0 || warned != run.warn || !strings.Contains(r.Stdout, "RegisterFatBinary") {
				t.Errorf("%s with %v: exit %d, warned %v (want %v)\nstdout:\n%s\nstderr:\n%s", k, run.objs, r.Code, warned, run.warn, r.Stdout, r.Stderr)
			}
		}
	}
}
