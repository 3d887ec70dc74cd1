package starlark_test

import (
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// The ROCm repository rule (rules/sdk/rocm.bzl) on ROCm 6.4 as Debian sid
// lays it out (device libraries inside LLVM 21's resource directory, the
// rest under /usr) and as AMD's packages do (/opt/rocm-6.4.x, device
// libraries inside the LLVM it ships). Names are the installations'; the
// contents are empty but for the version header and each library's soname
// (see repoctx_test.go).

func rocmAttrs(kv ...string) starlark.StringDict {
	a := starlark.StringDict{
		"path": starlark.String(""), "urls": starlark.NewList(nil), "sha256": starlark.String(""),
		"strip_prefix": starlark.String(""), "type": starlark.String(""),
		"device_lib_path": starlark.String(""), "offload": starlark.None,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = starlark.String(kv[i+1])
	}
	return a
}

// rocm64Bitcode is the device libraries of rocm-device-libs 7.0 (ROCm 6.4):
// the processors' ISA files, the generic targets' among them, and the ABI
// versions up to 6.
func rocm64Bitcode(dir string) []string {
	out := []string{dir + "/ocml.bc", dir + "/ockl.bc", dir + "/asanrtl.bc",
		dir + "/oclc_abi_version_400.bc", dir + "/oclc_abi_version_500.bc", dir + "/oclc_abi_version_600.bc",
		dir + "/oclc_daz_opt_on.bc", dir + "/oclc_daz_opt_off.bc", dir + "/oclc_wavefrontsize64_on.bc"}
	for _, isa := range []string{"900", "906", "908", "90a", "942", "950", "1030", "1100", "1101", "1200", "1201",
		"9-generic", "9-4-generic", "10-1-generic", "10-3-generic", "11-generic", "12-generic"} {
		out = append(out, dir+"/oclc_isa_version_"+isa+".bc")
	}
	return out
}

// rocmLibraries is each ROCm library's headers and shared object (real
// file, soname link, link-time link) under include/ and libdir/.
func rocmLibraries(libdir string, sonames map[string]string) []string {
	out := []string{"include/hip/hip_runtime.h", "include/hip/amd_detail/amd_warp_functions.h",
		"include/hip/hip_version.h=#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n#define HIP_VERSION_PATCH 43484\n"}
	for _, h := range []string{"rocprim/rocprim.hpp", "hipcub/hipcub.hpp", "rocrand/rocrand.h", "hiprand/hiprand.h",
		"rocblas/rocblas.h", "hipblas/hipblas.h", "rocsparse/rocsparse.h", "hipsparse/hipsparse.h"} {
		out = append(out, "include/"+h)
	}
	for lib, soname := range sonames {
		real := soname + ".60403"
		out = append(out, libdir+"/"+real+"=SONAME "+soname+"\n", libdir+"/"+soname+"->"+real, libdir+"/"+lib+"->"+soname)
	}
	return out
}

var rocm64Sonames = map[string]string{
	"libamdhip64.so": "libamdhip64.so.6", "librocrand.so": "librocrand.so.1", "libhiprand.so": "libhiprand.so.1",
	"librocblas.so": "librocblas.so.4", "libhipblas.so": "libhipblas.so.2", "librocsparse.so": "librocsparse.so.1",
	"libhipsparse.so": "libhipsparse.so.1",
}

func checkRocm64(t *testing.T, targets map[string]target) {
	t.Helper()
	rocm := targets["rocm"]
	if rocm.rule != "offload_rocm" || rocm.str("version") != "6.4.43484" {
		t.Fatalf(":rocm is %s version %q, want offload_rocm 6.4.43484: %s", rocm.rule, rocm.str("version"), rocm.attrs["error"])
	}
	procs := rocm.list("processors")
	for _, p := range []string{"gfx942", "gfx950", "gfx1200", "gfx1201", "gfx9-generic", "gfx9-4-generic", "gfx10-1-generic",
		"gfx10-3-generic", "gfx11-generic", "gfx12-generic"} {
		if !slices.Contains(procs, p) {
			t.Errorf(":rocm processors lack %s: %q", p, procs)
		}
	}
	if got := rocm.attrs["code_object_version"].String(); got != "0" {
		t.Errorf(":rocm code_object_version %s, want 0 (clang's default: the libraries have ABI 6)", got)
	}
	if libs := rocm.list("device_libs"); !slices.Contains(libs, "amdgcn/bitcode/oclc_isa_version_1201.bc") {
		t.Errorf(":rocm device_libs %q", libs)
	}
	for _, name := range []string{"rocprim", "hipcub"} {
		wantLibrary(t, targets, name)
	}
	for name, srcs := range map[string]string{"hip_runtime": "lib/libamdhip64.so.6", "rocrand": "lib/librocrand.so.1", "hiprand": "lib/libhiprand.so.1",
		"rocblas": "lib/librocblas.so.4", "hipblas": "lib/libhipblas.so.2", "rocsparse": "lib/librocsparse.so.1", "hipsparse": "lib/libhipsparse.so.1"} {
		wantLibrary(t, targets, name, srcs)
	}
	wantHeaders(t, targets, "rocprim", "include/rocprim/rocprim.hpp")
	wantHeaders(t, targets, "hipcub", "include/hipcub/hipcub.hpp")
}

// sidTree lays out Debian sid's ROCm 6.4 under usr as recorded in its
// chroot (testdata/rocm64-sid): rocm-device-libs-21's bitcode listing, the
// libraries of libamdhip64-dev, librocrand-dev, librocblas-dev and
// librocsparse-dev as `ls -la` shows them (real file, soname link, dev
// link), and the headers of each library.
func sidTree(t *testing.T, usr string) {
	t.Helper()
	entries := rocmLibraries("lib/x86_64-linux-gnu", nil)
	for _, name := range readLines(t, "rocm64-sid/bitcode.txt") {
		entries = append(entries, "lib/llvm-21/lib/clang/21/amdgcn/bitcode/"+name)
	}
	links := map[string]string{}
	var files []string
	for _, l := range readLines(t, "rocm64-sid/lib.txt") {
		f := strings.Fields(l)
		switch {
		case len(f) == 4 && f[2] == "->":
			links[f[1]] = f[3]
		case len(f) == 2:
			files = append(files, f[1])
		}
	}
	for name, target := range links {
		entries = append(entries, "lib/x86_64-linux-gnu/"+name+"->"+target)
	}
	for _, real := range files {
		soname := ""
		for name, target := range links {
			if target == real {
				soname = name
			}
		}
		entries = append(entries, "lib/x86_64-linux-gnu/"+real+"=SONAME "+soname+"\n")
	}
	tree(t, usr, entries...)
}

// Debian sid: libamdhip64-dev 6.4.3 in /usr, rocm-device-libs-21 inside
// LLVM 21 (/usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode); hipRAND,
// hipBLAS and hipSPARSE, which the chroot lacks, laid out as the others.
func TestRocm64DebianSid(t *testing.T) {
	usr := t.TempDir() + "/usr"
	sidTree(t, usr)
	tree(t, usr, rocmLibraries("lib/x86_64-linux-gnu", map[string]string{
		"libhiprand.so": "libhiprand.so.1", "libhipblas.so": "libhipblas.so.2", "libhipsparse.so": "libhipsparse.so.1"})...)
	c := newRepoCtx(t, "offload_rocm", rocmAttrs("path", usr))
	if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	checkRocm64(t, repoBuild(t, c))
}

// Two LLVMs with device libraries (sid's rocm-device-libs-21 and -22 from
// experimental): the newest LLVM's, unless device_lib_path names one.
func TestRocmDeviceLibsNewestLLVM(t *testing.T) {
	usr := t.TempDir() + "/usr"
	entries := append(rocmLibraries("lib/x86_64-linux-gnu", rocm64Sonames), rocm64Bitcode("lib/llvm-21/lib/clang/21/amdgcn/bitcode")...)
	entries = append(entries, rocm64Bitcode("lib/llvm-22/lib/clang/22/amdgcn/bitcode")...)
	entries = append(entries, "lib/llvm-22/lib/clang/22/amdgcn/bitcode/oclc_isa_version_1250.bc")
	tree(t, usr, entries...)
	for _, c := range []struct {
		attrs []string
		has   bool
	}{{[]string{"path", usr}, true}, {[]string{"path", usr, "device_lib_path", usr + "/lib/llvm-21/lib/clang/21/amdgcn/bitcode"}, false}} {
		ctx := newRepoCtx(t, "offload_rocm", rocmAttrs(c.attrs...))
		if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", ctx); msg != "" {
			t.Fatal(msg)
		}
		if got := slices.Contains(repoBuild(t, ctx)["rocm"].list("processors"), "gfx1250"); got != c.has {
			t.Errorf("%q: gfx1250 (only LLVM 22's device libraries have it) among the processors: %v, want %v", c.attrs, got, c.has)
		}
	}
	ctx := newRepoCtx(t, "offload_rocm", rocmAttrs("path", usr, "device_lib_path", usr+"/lib"))
	if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", ctx); !strings.Contains(msg, "device_lib_path "+usr+"/lib holds no ocml.bc") {
		t.Errorf("device_lib_path without device libraries: %q", msg)
	}
}

// AMD's ROCm 6.4: /opt/rocm-6.4.3 with lib/ and the LLVM it ships in
// lib/llvm (device libraries in lib/llvm/lib/clang/19/lib/amdgcn/bitcode).
func TestRocm64AMD(t *testing.T) {
	rocm := t.TempDir() + "/opt/rocm-6.4.3"
	entries := append(rocmLibraries("lib", rocm64Sonames), rocm64Bitcode("lib/llvm/lib/clang/19/lib/amdgcn/bitcode")...)
	tree(t, rocm, append(entries, "lib/llvm/bin/clang", ".info/version=6.4.3-128\n")...)
	c := newRepoCtx(t, "offload_rocm", rocmAttrs("path", rocm))
	if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	checkRocm64(t, repoBuild(t, c))
}

// ROCm 6.4 without rocBLAS: the target names the version, the Debian sid
// package and where else to find it.
func TestRocm64MissingLibrary(t *testing.T) {
	usr := t.TempDir() + "/usr"
	sonames := map[string]string{"libamdhip64.so": "libamdhip64.so.6"}
	tree(t, usr, append(rocmLibraries("lib/x86_64-linux-gnu", sonames), rocm64Bitcode("lib/llvm-21/lib/clang/21/amdgcn/bitcode")...)...)
	c := newRepoCtx(t, "offload_rocm", rocmAttrs("path", usr))
	if msg := runRepositoryRule(t, "rules/sdk/rocm.bzl", "_offload_rocm_repository_impl", c); msg != "" {
		t.Fatal(msg)
	}
	targets := repoBuild(t, c)
	wantMissing(t, targets, "rocblas", "ROCm 6.4.43484 ("+usr+") has no rocblas (missing: librocblas.so)", "Debian sid: apt-get install librocblas-dev")
	wantMissing(t, targets, "rocrand", "has no rocrand (missing: librocrand.so)", "apt-get install librocrand-dev")
	wantMissing(t, targets, "hiprand", "has no hiprand")
}
