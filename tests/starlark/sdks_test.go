package starlark_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// A throwaway SDK for the throwaway sycl kind: its repository rule, its
// provider and the struct that describes it, in one file. The registry's
// line is all else it needs: the module extension gets a tag for it and
// offload_clang_toolchain an attribute whose flags and files reach sycl's
// compiles.
const oneapiSDK = `load("//rules/sdk:common.bzl", "no_workspace_attrs")

OffloadOneapiInfo = provider(fields = ["found", "error", "root", "files"])

def _offload_oneapi_repository_impl(rctx):
    pass

offload_oneapi_repository = repository_rule(
    implementation = _offload_oneapi_repository_impl,
    attrs = {"path": attr.string(), "level_zero": attr.bool()},
)

def _contribution(oneapi, llvm, version):
    return struct(copts = ["--sycl-path=" + oneapi.root], files = oneapi.files, ptxas = None)

ONEAPI_SDK = struct(
    name = "oneapi",
    repository_rule = offload_oneapi_repository,
    default_repository = "offload_oneapi",
    tag_attrs = {"level_zero": attr.bool()},
    workspace_attrs = no_workspace_attrs,
    toolchain = struct(
        provider = OffloadOneapiInfo,
        kind = "sycl",
        doc = "An oneAPI installation for SYCL.",
        contribution = _contribution,
    ),
)
`

// addThrowawaySDK writes the SDK file and its registry line under root.
func addThrowawaySDK(t *testing.T, root string) {
	t.Helper()
	sdk := filepath.Join(root, "rules", "sdk")
	if err := os.WriteFile(filepath.Join(sdk, "oneapi.bzl"), []byte(oneapiSDK), 0o644); err != nil {
		t.Fatal(err)
	}
	registry := filepath.Join(sdk, "registry.bzl")
	data, err := os.ReadFile(registry)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `load(":llvm.bzl", "LLVM_SDK")`, `load(":llvm.bzl", "LLVM_SDK")
load(":oneapi.bzl", "ONEAPI_SDK")`, 1)
	text = strings.Replace(text, "SDKS = [LLVM_SDK, ROCM_SDK, CUDA_SDK]", "SDKS = [LLVM_SDK, ROCM_SDK, CUDA_SDK, ONEAPI_SDK]", 1)
	if text == string(data) {
		t.Fatal("rules/sdk/registry.bzl changed its layout; update this test")
	}
	if err := os.WriteFile(registry, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkThrowawaySDK runs the extension and offload_clang_toolchain of the
// rules/ under root and finds the throwaway SDK in both.
func checkThrowawaySDK(t *testing.T, root string) {
	t.Helper()
	oneapiTag := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"name": starlark.String("offload_oneapi"), "path": starlark.String("/opt/intel/oneapi"),
		"urls": starlark.NewList(nil), "sha256": starlark.String(""), "strip_prefix": starlark.String(""),
		"type": starlark.String(""), "level_zero": starlark.True,
	})
	got := strings.Join(runExtensionIn(t, root, module(map[string][]starlark.Value{"oneapi": {oneapiTag}})), "\n")
	if want := "offload_oneapi level_zero=True name=offload_oneapi path=/opt/intel/oneapi"; !strings.Contains(got, want) {
		t.Errorf("extension repositories:\n%s\nwant a line %q", got, want)
	}
	if got := strings.Join(runExtensionIn(t, root, module(map[string][]starlark.Value{"oneapi": nil})), "\n"); !strings.Contains(got, "offload_oneapi name=offload_oneapi\n") {
		t.Errorf("extension repositories without tags:\n%s\nwant offload_oneapi's default", got)
	}

	l, rules := toolchainLoader(root)
	if _, err := l.load("rules/private/toolchain.bzl"); err != nil {
		t.Fatalf("loading rules/private/toolchain.bzl: %v", err)
	}
	rule := rules["_offload_clang_toolchain_impl"]
	if rule == nil {
		t.Fatal("rules/private/toolchain.bzl defines no offload_clang_toolchain")
	}
	attrs := rule["attrs"].(*starlark.Dict)
	for _, name := range []string{"rocm", "cuda", "oneapi"} {
		if _, found, _ := attrs.Get(starlark.String(name)); !found {
			t.Errorf("offload_clang_toolchain has no attribute %q", name)
		}
	}

	// A toolchain over an oneAPI puts its flags and files into sycl's compiles.
	sdkFile, err := l.load("rules/sdk/oneapi.bzl")
	if err != nil {
		t.Fatal(err)
	}
	target := starlark.NewDict(1)
	if err := target.SetKey(sdkFile["OffloadOneapiInfo"], starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"found": starlark.True, "error": starlark.String(""), "root": starlark.String("external/offload_oneapi"),
		"files": starlark.String("<oneapi files>"),
	})); err != nil {
		t.Fatal(err)
	}
	ctx := toolchainCtx(starlark.StringDict{"oneapi": target})
	info := call(t, rule["implementation"].(starlark.Callable), ctx).(*starlark.List).Index(0)
	if got := field(t, info, "kind_copts"); got != `{"sycl": ["--sycl-path=external/offload_oneapi"]}` {
		t.Errorf("kind_copts = %s", got)
	}
	if got := field(t, info, "kind_files"); got != `{"sycl": "<oneapi files>"}` {
		t.Errorf("kind_files = %s", got)
	}
	if got := field(t, info, "sdks"); !strings.Contains(got, `"oneapi": struct(`) {
		t.Errorf("sdks = %s", got)
	}
}

// toolchainLoader loads the rules' files with stand-ins for Bazel's
// builtins: rule() records its arguments by implementation name, a
// provider is a struct constructor of its own identity.
func toolchainLoader(root string) (*loader, map[string]map[string]starlark.Value) {
	rules := map[string]map[string]starlark.Value{}
	var calls []repoCall
	l := extensionLoader(&calls)
	l.root = root
	makeStruct := starlark.NewBuiltin("struct", starlarkstruct.Make)
	providers := 0
	l.predeclared["provider"] = starlark.NewBuiltin("provider", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		providers++
		return starlark.NewBuiltin(fmt.Sprintf("provider%d", providers), starlarkstruct.Make), nil
	})
	l.predeclared["rule"] = starlark.NewBuiltin("rule", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		kw := map[string]starlark.Value{}
		for _, kv := range kwargs {
			kw[string(kv[0].(starlark.String))] = kv[1]
		}
		rules[kw["implementation"].(starlark.Callable).Name()] = kw
		return starlark.None, nil
	})
	for _, name := range []string{"DefaultInfo"} {
		l.predeclared[name] = makeStruct
	}
	l.predeclared["native"] = starlarkstruct.FromStringDict(starlarkstruct.Default, nil)
	l.predeclared["platform_common"] = starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"ToolchainInfo": makeStruct})
	return l, rules
}

// toolchainCtx is offload_clang_toolchain's ctx for path = clang-22 and the given SDK attributes.
func toolchainCtx(sdks starlark.StringDict) starlark.Value {
	attrs := starlark.StringDict{
		"llvm": starlark.None, "clang": starlark.None, "path": starlark.String("/usr/bin/clang-22"),
		"kind_copts": starlark.NewDict(0), "version": starlark.String("22"), "copts": starlark.NewList(nil),
		"link_flags": starlark.NewList(nil), "ptxas": starlark.String(""), "host_triple": starlark.String(""),
		"rocm": starlark.None, "cuda": starlark.None,
	}
	for k, v := range sdks {
		attrs[k] = v
	}
	s := func(d starlark.StringDict) starlark.Value {
		return starlarkstruct.FromStringDict(starlarkstruct.Default, d)
	}
	return s(starlark.StringDict{
		"attr":  s(attrs),
		"files": s(starlark.StringDict{"data": starlark.NewList(nil)}),
		"label": starlark.String("//:clang"),
	})
}
