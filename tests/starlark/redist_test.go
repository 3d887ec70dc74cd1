package starlark_test

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// fetch_redist of rules/sdk/redist.bzl against a stand-in repository_ctx
// that records downloads: which archives it asks for, with which checksum
// and strip prefix, and what it refuses. (tests/bazel/sdk_archives.sh runs
// the manifest form on real Bazel over real archives.)

// redistCtx is a repository_ctx whose attributes are the given ones over
// redist.bzl's defaults; read returns manifest.
func redistCtx(manifest string, attrs starlark.StringDict, log *[]string) starlark.Value {
	a := starlark.StringDict{
		"urls": starlark.NewList(nil), "redist_json": starlark.String(""), "redist_json_sha256": starlark.String(""),
		"redist_base_url": starlark.String(""), "redist_platform": starlark.String("linux-x86_64"),
		"redist_components": starlark.NewList([]starlark.Value{starlark.String("cuda_cudart"), starlark.String("cuda_nvcc")}),
		"components":        starlark.NewDict(0),
	}
	for k, v := range attrs {
		a[k] = v
	}
	record := func(name string) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			parts := []string{name}
			for _, kv := range kwargs {
				parts = append(parts, fmt.Sprintf("%s=%s", string(kv[0].(starlark.String)), kv[1].String()))
			}
			*log = append(*log, strings.Join(parts, " "))
			return starlark.None, nil
		})
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"name":                 starlark.String("offload_cuda"),
		"attr":                 starlarkstruct.FromStringDict(starlarkstruct.Default, a),
		"download":             record("download"),
		"download_and_extract": record("download_and_extract"),
		"read": starlark.NewBuiltin("read", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.String(manifest), nil
		}),
		"path": starlark.NewBuiltin("path", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return starlark.String("/repo/" + string(args[0].(starlark.String))), nil
		}),
	})
}

// fetchRedist runs fetch_redist; it returns the downloads, and the
// failure's message if it failed.
func fetchRedist(t *testing.T, manifest string, attrs starlark.StringDict) ([]string, string) {
	t.Helper()
	var calls []repoCall
	g, err := extensionLoader(&calls).load("rules/sdk/redist.bzl")
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	_, err = starlark.Call(&starlark.Thread{Name: "test"}, g["fetch_redist"], starlark.Tuple{redistCtx(manifest, attrs, &log)}, nil)
	if err != nil {
		return log, err.Error()
	}
	return log, ""
}

func dict(kv ...string) *starlark.Dict {
	d := starlark.NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		d.SetKey(starlark.String(kv[i]), starlark.String(kv[i+1]))
	}
	return d
}

const manifest118 = `{"release_label": "11.8.0",
 "cuda_nvcc": {"name": "CUDA NVCC", "version": "11.8.89", "linux-x86_64": {
   "relative_path": "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-11.8.89-archive.tar.xz", "sha256": "aa11"}},
 "cuda_cudart": {"name": "CUDA Runtime", "version": "11.8.89", "linux-x86_64": {
   "relative_path": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-11.8.89-archive.tar.xz", "sha256": "bb22"},
   "linux-sbsa": {"relative_path": "cuda_cudart/linux-sbsa/cuda_cudart-linux-sbsa-11.8.89-archive.tar.xz", "sha256": "cc33"}}}`

func TestRedistManifest(t *testing.T) {
	log, failed := fetchRedist(t, manifest118, starlark.StringDict{
		"redist_json":        starlark.String("https://mirror.example/cuda/redist/redistrib_11.8.0.json"),
		"redist_json_sha256": starlark.String("ff00"),
	})
	want := []string{
		`download url="https://mirror.example/cuda/redist/redistrib_11.8.0.json" output="_redist/redistrib.json" sha256="ff00"`,
		`download_and_extract url="https://mirror.example/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-11.8.89-archive.tar.xz" output="_redist/tree" sha256="bb22" stripPrefix="cuda_cudart-linux-x86_64-11.8.89-archive"`,
		`download_and_extract url="https://mirror.example/cuda/redist/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-11.8.89-archive.tar.xz" output="_redist/tree" sha256="aa11" stripPrefix="cuda_nvcc-linux-x86_64-11.8.89-archive"`,
	}
	if failed != "" || strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("downloads:\n%s\nwant:\n%s\n(failure: %q)", strings.Join(log, "\n"), strings.Join(want, "\n"), failed)
	}
}

func TestRedistManifestPlatformAndBase(t *testing.T) {
	log, failed := fetchRedist(t, manifest118, starlark.StringDict{
		"redist_json":        starlark.String("file:///m/redistrib_11.8.0.json"),
		"redist_json_sha256": starlark.String("ff00"),
		"redist_base_url":    starlark.String("https://nvidia.example/redist/"),
		"redist_platform":    starlark.String("linux-sbsa"),
		"redist_components":  starlark.NewList([]starlark.Value{starlark.String("cuda_cudart")}),
	})
	want := `download_and_extract url="https://nvidia.example/redist/cuda_cudart/linux-sbsa/cuda_cudart-linux-sbsa-11.8.89-archive.tar.xz" output="_redist/tree" sha256="cc33" stripPrefix="cuda_cudart-linux-sbsa-11.8.89-archive"`
	if failed != "" || len(log) != 2 || log[1] != want {
		t.Errorf("downloads:\n%s\nwant the manifest and:\n%s\n(failure: %q)", strings.Join(log, "\n"), want, failed)
	}
}

func TestRedistComponents(t *testing.T) {
	log, failed := fetchRedist(t, "", starlark.StringDict{
		"components": dict(
			"https://m/libcurand-linux-x86_64-10.3.0.86-archive.tar.xz", "dd44",
			"https://m/cuda_nvcc-linux-x86_64-11.8.89-archive.zip", "aa11",
		),
	})
	want := []string{
		`download_and_extract url="https://m/cuda_nvcc-linux-x86_64-11.8.89-archive.zip" output="_redist/tree" sha256="aa11" stripPrefix="cuda_nvcc-linux-x86_64-11.8.89-archive"`,
		`download_and_extract url="https://m/libcurand-linux-x86_64-10.3.0.86-archive.tar.xz" output="_redist/tree" sha256="dd44" stripPrefix="libcurand-linux-x86_64-10.3.0.86-archive"`,
	}
	if failed != "" || strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("downloads:\n%s\nwant:\n%s\n(failure: %q)", strings.Join(log, "\n"), strings.Join(want, "\n"), failed)
	}
}

func TestRedistRefusals(t *testing.T) {
	json := starlark.String("https://m/redistrib_11.8.0.json")
	for _, c := range []struct {
		attrs starlark.StringDict
		want  string
	}{
		{starlark.StringDict{"redist_json": json}, "redist_json needs redist_json_sha256"},
		{starlark.StringDict{"redist_json": json, "redist_json_sha256": starlark.String("ff"),
			"redist_components": starlark.NewList([]starlark.Value{starlark.String("cuda_cccl")})},
			"lists no component cuda_cccl; it has cuda_cudart, cuda_nvcc"},
		{starlark.StringDict{"redist_json": json, "redist_json_sha256": starlark.String("ff"),
			"redist_platform": starlark.String("windows-x86_64")},
			"component cuda_cudart of https://m/redistrib_11.8.0.json has no windows-x86_64 archive"},
		{starlark.StringDict{"redist_json": json, "components": dict("https://m/a.tar", "ff")},
			"give redist_json or components, not both"},
		{starlark.StringDict{"urls": starlark.NewList([]starlark.Value{starlark.String("https://m/cuda.tar")}),
			"components": dict("https://m/a.tar", "ff")}, "give urls"},
		{starlark.StringDict{"components": dict("https://m/a.tar.xz", "")}, "component https://m/a.tar.xz has no sha256"},
		{starlark.StringDict{"components": dict("https://m/a.rpm", "ff")}, "not an archive this rule knows"},
	} {
		log, failed := fetchRedist(t, manifest118, c.attrs)
		if !strings.Contains(failed, c.want) {
			t.Errorf("%v: failure %q, want one with %q", c.attrs, failed, c.want)
		}
		for _, l := range log {
			if strings.HasPrefix(l, "download_and_extract") {
				t.Errorf("%v: extracted %s before failing", c.attrs, l)
			}
		}
	}
}
