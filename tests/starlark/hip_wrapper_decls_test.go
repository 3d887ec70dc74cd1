package starlark_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// hipCopts runs offload_clang_toolchain's implementation over a found ROCm
// for a clang of the given version and returns its HIP flags.
func hipCopts(t *testing.T, version string) string {
	t.Helper()
	l, rules := toolchainLoader("")
	if _, err := l.load("rules/private/toolchain.bzl"); err != nil {
		t.Fatalf("loading rules/private/toolchain.bzl: %v", err)
	}
	providers, err := l.load("rules/private/providers.bzl")
	if err != nil {
		t.Fatal(err)
	}
	s := func(d starlark.StringDict) starlark.Value {
		return starlarkstruct.FromStringDict(starlarkstruct.Default, d)
	}
	rocm := starlark.NewDict(1)
	if err := rocm.SetKey(providers["OffloadRocmInfo"], s(starlark.StringDict{
		"found": starlark.True, "error": starlark.String(""), "root": starlark.String("external/offload_rocm"),
		"code_object_version": starlark.MakeInt(0), "fp16_compat_header": starlark.None,
		"wavefront_macro": starlark.True, "files": starlark.String("<rocm files>"),
	})); err != nil {
		t.Fatal(err)
	}
	ctx := toolchainCtx(starlark.StringDict{"rocm": rocm, "version": starlark.String(version), "path": starlark.String("/usr/bin/clang-" + version)})
	ctx = s(starlark.StringDict{
		"attr":  mustAttr(t, ctx, "attr"),
		"files": mustAttr(t, ctx, "files"),
		"label": mustAttr(t, ctx, "label"),
		"file":  s(starlark.StringDict{"_hip_wrapper_decls": s(starlark.StringDict{"path": starlark.String("external/rules_offload/rules/private/hip_wrapper_decls.h")})}),
	})
	rule := rules["_offload_clang_toolchain_impl"]
	info := call(t, rule["implementation"].(starlark.Callable), ctx).(*starlark.List).Index(0)
	return field(t, info, "kind_copts")
}

func mustAttr(t *testing.T, v starlark.Value, name string) starlark.Value {
	t.Helper()
	a, err := v.(*starlarkstruct.Struct).Attr(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A clang 23 or later over a ROCm force-includes hip_wrapper_decls.h into
// HIP compiles (clang 23's wrapper lacks declarations ROCm's headers call:
// "use of undeclared identifier '__ocml_floor_f64'"); clang 22 and older,
// whose wrapper declares them, and a clang of unknown version get nothing.
func TestHIPWrapperDeclsFromClang23(t *testing.T) {
	const include = `"-include", "external/rules_offload/rules/private/hip_wrapper_decls.h"`
	for version, want := range map[string]bool{"21": false, "22.1.8": false, "23": true, "23.1.4": true, "24.0.0": true, "": false} {
		got := hipCopts(t, version)
		if !strings.Contains(got, "--rocm-path=external/offload_rocm") {
			t.Fatalf("clang %q: HIP flags %s lack the ROCm's", version, got)
		}
		if strings.Contains(got, include) != want {
			t.Errorf("clang %q: HIP flags %s; want the header: %v", version, got, want)
		}
	}
}

// hip_wrapper_decls.h with clang-23 and ROCm 6.4's HIP headers (Debian
// sid's, in the chroot of scripts/sid.sh, which sets SID=1; elsewhere the
// test skips): a kernel using the double conversions, half, half2 and
// bfloat16 functions of the HIP headers parses with the header, and
// without it (or with -DOFFLOAD_NO_HIP_WRAPPER_DECLS) fails as clang-23
// fails on those headers by itself.
func TestHIPWrapperDeclsWithClang23(t *testing.T) {
	if os.Getenv("SID") != "1" {
		t.Skip("needs clang-23 and ROCm 6.4's HIP headers: run in the sid chroot (scripts/sid.sh run)")
	}
	clang := llvmtest.Tool(t, "clang-23")
	header, err := filepath.Abs(filepath.Join(repoRoot, "rules", "private", "hip_wrapper_decls.h"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "k.hip", []byte(`#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
__global__ void k(double *d, __half *h, __half2 *h2, __hip_bfloat16 *b) {
  d[0] = __double2int_rd(d[1]) + __double2ll_rn(d[2]) + __double2uint_ru(d[3]);
  h[0] = hfloor(h[1]) + hceil(h[2]) + hexp(h[3]);
  h2[0] = h2floor(h2[1]) + h2sin(h2[2]);
  b[0] = hfloor(b[1]);
}
`))
	parse := func(extra ...string) llvmtest.Result {
		args := append([]string{"-x", "hip", "--offload-arch=gfx90a", "--offload-device-only", "-fsyntax-only", "-nogpulib",
			"--rocm-path=/usr", "-D__AMDGCN_WAVEFRONT_SIZE=64"}, extra...)
		return llvmtest.RunResult(t, dir, nil, clang, append(args, "k.hip")...)
	}
	if r := parse("-include", header); r.Code != 0 {
		t.Fatalf("with the header: %v", r)
	}
	for _, extra := range [][]string{nil, {"-include", header, "-DOFFLOAD_NO_HIP_WRAPPER_DECLS"}} {
		if r := parse(extra...); r.Code == 0 || !strings.Contains(r.Stderr, "use of undeclared identifier '__ocml_floor_f64'") {
			t.Errorf("%q: clang-23 parses ROCm's headers by itself now (%v): is the header still needed?", extra, r)
		}
	}
}
