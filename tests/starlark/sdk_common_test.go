package starlark_test

import (
	"reflect"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// link_shared_library of rules/sdk/common.bzl against a stand-in
// repository_ctx: the SDK repositories link a runtime under its plain name
// and under the soname objdump reports, because a program's loader looks
// for the soname. (tests/bazel/remote.sh runs the programs on a worker
// where only that link can satisfy the loader.)

// sonameCtx is a repository_ctx whose objdump (if any) prints objdumpOut
// and whose readlink -f maps a path to "/real" + path; symlink calls are
// appended to links as "name -> target".
func sonameCtx(objdump bool, objdumpOut string, links *[]string) starlark.Value {
	result := func(out string) starlark.Value {
		return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
			"return_code": starlark.MakeInt(0), "stdout": starlark.String(out), "stderr": starlark.String(""),
		})
	}
	builtin := func(name string, fn func(args starlark.Tuple) starlark.Value) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return fn(args), nil
		})
	}
	str := func(v starlark.Value) string { s, _ := starlark.AsString(v); return s }
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"which": builtin("which", func(args starlark.Tuple) starlark.Value {
			if objdump && str(args[0]) == "objdump" {
				return starlark.String("/usr/bin/objdump")
			}
			return starlark.None
		}),
		"execute": builtin("execute", func(args starlark.Tuple) starlark.Value {
			argv := args[0].(*starlark.List)
			switch str(argv.Index(0)) {
			case "readlink":
				return result("/real" + str(argv.Index(2)) + "\n")
			case "/usr/bin/objdump":
				return result(objdumpOut)
			}
			return result("")
		}),
		"symlink": builtin("symlink", func(args starlark.Tuple) starlark.Value {
			*links = append(*links, str(args[1])+" -> "+str(args[0]))
			return starlark.None
		}),
	})
}

func TestLinkSharedLibrary(t *testing.T) {
	const dynamic = `
Dynamic Section:
  NEEDED               libc.so.6
  SONAME               %s
  RUNPATH              $ORIGIN
`
	real := "/real/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153"
	for _, c := range []struct {
		name    string
		objdump bool
		out     string
		want    []string
	}{
		{"soname differs", true, strings.Replace(dynamic, "%s", "libamdhip64.so.5", 1),
			[]string{"lib/libamdhip64.so -> " + real, "lib/libamdhip64.so.5 -> " + real}},
		{"soname is the name", true, strings.Replace(dynamic, "%s", "libamdhip64.so", 1),
			[]string{"lib/libamdhip64.so -> " + real}},
		{"no SONAME entry", true, "Dynamic Section:\n  NEEDED               libc.so.6\n",
			[]string{"lib/libamdhip64.so -> " + real}},
		{"a soname with a slash is not a file name", true, strings.Replace(dynamic, "%s", "../evil.so", 1),
			[]string{"lib/libamdhip64.so -> " + real}},
		{"no objdump", false, "",
			[]string{"lib/libamdhip64.so -> " + real}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls []repoCall
			g, err := extensionLoader(&calls).load("rules/sdk/common.bzl")
			if err != nil {
				t.Fatal(err)
			}
			var links []string
			call(t, g["link_shared_library"].(starlark.Callable),
				sonameCtx(c.objdump, c.out, &links), "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153", "lib/libamdhip64.so")
			if !reflect.DeepEqual(links, c.want) {
				t.Errorf("links %q, want %q", links, c.want)
			}
		})
	}
}
