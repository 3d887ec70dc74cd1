package starlark_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	starlarkjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// The offload module extension (rules/extensions.bzl) cannot run on Bazel
// 4.2.3, the only Bazel here; its logic (which repositories it declares,
// whose tags win) runs here against stand-ins for Bazel's builtins that
// record every repository rule call.

type repoCall struct {
	rule   string // the implementation's name, e.g. _offload_llvm_repository_impl
	kwargs map[string]string
}

func (c repoCall) String() string {
	keys := make([]string, 0, len(c.kwargs))
	for k := range c.kwargs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(strings.TrimPrefix(c.rule, "_"), "_repository_impl"))
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, c.kwargs[k])
	}
	return b.String()
}

func extensionLoader(calls *[]repoCall) *loader {
	none := func(name string) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		})
	}
	attr := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"string": none("string"), "string_list": none("string_list"), "bool": none("bool"),
		"int": none("int"), "label": none("label"), "label_list": none("label_list"),
		"string_dict": none("string_dict"), "string_list_dict": none("string_list_dict"),
	})
	kwarg := func(kwargs []starlark.Tuple, name string) starlark.Value {
		for _, kv := range kwargs {
			if string(kv[0].(starlark.String)) == name {
				return kv[1]
			}
		}
		return starlark.None
	}
	repositoryRule := starlark.NewBuiltin("repository_rule", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		impl := kwarg(kwargs, "implementation").(starlark.Callable).Name()
		return starlark.NewBuiltin(impl, func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			c := repoCall{rule: impl, kwargs: map[string]string{}}
			for _, kv := range kwargs {
				v := kv[1]
				if s, ok := v.(starlark.String); ok {
					if s == "" {
						continue // an unset attribute
					}
					c.kwargs[string(kv[0].(starlark.String))] = string(s)
					continue
				}
				if l, ok := v.(*starlark.List); ok && l.Len() == 0 {
					continue
				}
				if d, ok := v.(*starlark.Dict); ok && d.Len() == 0 {
					continue
				}
				c.kwargs[string(kv[0].(starlark.String))] = v.String()
			}
			*calls = append(*calls, c)
			return starlark.None, nil
		}), nil
	})
	moduleExtension := starlark.NewBuiltin("module_extension", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return kwarg(kwargs, "implementation"), nil
	})
	return &loader{
		cache: map[string]starlark.StringDict{},
		predeclared: starlark.StringDict{
			"struct":           starlark.NewBuiltin("struct", starlarkstruct.Make),
			"attr":             attr,
			"repository_rule":  repositoryRule,
			"module_extension": moduleExtension,
			"tag_class":        none("tag_class"),
			// The SDK files name their providers and the toolchain's
			// flags; neither runs in the extension.
			"provider": none("provider"),
			"depset":   none("depset"),
			"Label":    none("Label"),
			"json":     starlarkjson.Module,
		},
	}
}

// tag is one offload.<sdk>(...) tag with every attribute set, as Bazel
// hands them to the implementation: the given ones, the others at their
// defaults (those of rules/sdk/redist.bzl for NVIDIA's components).
func tag(name string, kv ...string) starlark.Value {
	d := starlark.StringDict{
		"name": starlark.String(name), "path": starlark.String(""), "urls": starlark.NewList(nil),
		"sha256": starlark.String(""), "strip_prefix": starlark.String(""), "type": starlark.String(""),
		"version":     starlark.String("22"),
		"redist_json": starlark.String(""), "redist_json_sha256": starlark.String(""),
		"redist_base_url": starlark.String(""), "redist_platform": starlark.String("linux-x86_64"),
		"redist_components": starlark.NewList([]starlark.Value{starlark.String("cuda_cudart")}),
		"components":        starlark.NewDict(0),
		"site_packages":     starlark.String(""),
		"device_lib_path":   starlark.String(""),
	}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i]] = starlark.String(kv[i+1])
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, d)
}

// module is a module's tags: {"llvm": [...], "rocm": [...], "cuda": [...],
// "tool": [...]}.
func module(tags map[string][]starlark.Value) starlark.Value {
	d := starlark.StringDict{}
	for _, sdk := range []string{"llvm", "rocm", "cuda", "tool"} {
		d[sdk] = starlark.NewList(tags[sdk])
	}
	for sdk, l := range tags {
		d[sdk] = starlark.NewList(l) // an SDK of a test's own
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"tags": starlarkstruct.FromStringDict(starlarkstruct.Default, d),
	})
}

func runExtension(t *testing.T, modules ...starlark.Value) []string {
	t.Helper()
	return runExtensionIn(t, "", modules...)
}

// runExtensionIn runs the extension of the rules/ under root (repoRoot if "").
func runExtensionIn(t *testing.T, root string, modules ...starlark.Value) []string {
	t.Helper()
	var calls []repoCall
	l := extensionLoader(&calls)
	l.root = root
	g, err := l.load("rules/extensions.bzl")
	if err != nil {
		t.Fatalf("loading rules/extensions.bzl: %v", err)
	}
	impl, ok := g["offload"].(starlark.Callable)
	if !ok {
		t.Fatalf("offload is %v, not the extension's implementation", g["offload"])
	}
	mctx := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"modules": starlark.NewList(modules)})
	call(t, impl, mctx)
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.String()
	}
	sort.Strings(out)
	return out
}

func TestExtensionDefaults(t *testing.T) {
	got := runExtension(t, module(nil))
	// No tags: each repository rule's own defaults (version "22" for LLVM),
	// ROCm's read by the tool @offload_tool builds, and the machine's GPUs
	// for targets "native".
	want := []string{
		"offload_cuda name=offload_cuda",
		"offload_llvm name=offload_llvm",
		"offload_native name=offload_native",
		"offload_rocm name=offload_rocm offload=@offload_tool//:bin/offload",
		"offload_tool name=offload_tool",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("repositories:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// toolTag is one offload.tool(...) tag.
func toolTag(binary, goCmd string) starlark.Value {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"binary": starlark.String(binary), "go": starlark.String(goCmd),
	})
}

// The offload tool is one repository, @offload_tool: built with Go unless
// the root module's tool tag (else another module's) says otherwise.
func TestExtensionToolTag(t *testing.T) {
	dep := module(map[string][]starlark.Value{"tool": {toolTag("", "/opt/go/bin/go")}})
	root := module(map[string][]starlark.Value{"tool": {toolTag("@//tools:offload", "")}})
	got := runExtension(t, root, dep)
	if want := "offload_tool binary=@//tools:offload name=offload_tool"; got[len(got)-1] != want {
		t.Errorf("with the root's tool tag: %s, want %s", got[len(got)-1], want)
	}
	// ROCm's libraries are read by that binary, as in WORKSPACE mode.
	if want := "offload_rocm name=offload_rocm offload=@//tools:offload"; got[len(got)-2] != want {
		t.Errorf("with the root's tool tag: %s, want %s", got[len(got)-2], want)
	}
	got = runExtension(t, module(nil), dep)
	if want := "offload_tool go=/opt/go/bin/go name=offload_tool"; got[len(got)-1] != want {
		t.Errorf("with a dependency's tool tag: %s, want %s", got[len(got)-1], want)
	}
}

func TestExtensionRootTagsWin(t *testing.T) {
	root := module(map[string][]starlark.Value{
		"llvm": {tag("offload_llvm", "path", "/opt/llvm-22")},
		"rocm": {tag("offload_rocm", "sha256", "ab12", "strip_prefix", "rocm-6.2")},
	})
	dep := module(map[string][]starlark.Value{
		"llvm": {tag("offload_llvm", "path", "/elsewhere"), tag("offload_llvm16", "version", "16")},
		"cuda": {tag("offload_cuda", "path", "/usr/local/cuda-12.4")},
	})
	got := runExtension(t, root, dep)
	want := []string{
		"offload_cuda name=offload_cuda path=/usr/local/cuda-12.4 redist_components=[\"cuda_cudart\"] redist_platform=linux-x86_64",
		"offload_llvm name=offload_llvm path=/opt/llvm-22 version=22",
		"offload_llvm name=offload_llvm16 version=16",
		"offload_native name=offload_native",
		"offload_rocm name=offload_rocm offload=@offload_tool//:bin/offload sha256=ab12 strip_prefix=rocm-6.2",
		"offload_tool name=offload_tool",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("repositories:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// NVIDIA's redistributable components reach the CUDA repository rule.
func TestExtensionCudaRedist(t *testing.T) {
	root := module(map[string][]starlark.Value{
		"cuda": {tag("offload_cuda", "redist_json", "https://example.com/redist/redistrib_11.8.0.json",
			"redist_json_sha256", "cd34")},
	})
	got := runExtension(t, root)
	want := "offload_cuda name=offload_cuda redist_components=[\"cuda_cudart\"] " +
		"redist_json=https://example.com/redist/redistrib_11.8.0.json redist_json_sha256=cd34 redist_platform=linux-x86_64"
	if got[0] != want {
		t.Errorf("CUDA repository:\n%s\nwant:\n%s", got[0], want)
	}
}

// NVIDIA's pip wheels (a site-packages directory) reach the CUDA repository rule.
func TestExtensionCudaPip(t *testing.T) {
	root := module(map[string][]starlark.Value{
		"cuda": {tag("offload_cuda", "site_packages", "/opt/venv/lib/python3.12/site-packages")},
	})
	got := runExtension(t, root)
	want := "offload_cuda name=offload_cuda redist_components=[\"cuda_cudart\"] " +
		"redist_platform=linux-x86_64 site_packages=/opt/venv/lib/python3.12/site-packages"
	if got[0] != want {
		t.Errorf("CUDA repository:\n%s\nwant:\n%s", got[0], want)
	}
}
