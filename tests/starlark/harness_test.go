// Package starlark_test runs the pure Starlark of rules/private (target
// parsing) in go.starlark.net, so it can be checked against the same
// vectors as lib/targetid without starting Bazel.
package starlark_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// repoRoot is where //labels resolve.
const repoRoot = "../.."

// bazelOptions are the dialect of Bazel 4.2+: no while, no top-level
// control flow, no recursion, no global reassignment.
var bazelOptions = &syntax.FileOptions{}

// loader loads .bzl files the way Bazel resolves their load() labels:
// "//pkg:file.bzl" from the repository root, ":file.bzl" from the loading
// file's package. Only the builtins the pure files use are predeclared.
type loader struct {
	root        string // where //labels resolve; repoRoot if empty
	mu          sync.Mutex
	cache       map[string]starlark.StringDict
	predeclared starlark.StringDict // the builtins the loaded files may use
}

var bzl = &loader{
	cache: map[string]starlark.StringDict{},
	predeclared: starlark.StringDict{
		"struct": starlark.NewBuiltin("struct", starlarkstruct.Make),
		// The device families name the SDK files of a device link in
		// functions these tests do not call.
		"depset": starlark.NewBuiltin("depset", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return nil, fmt.Errorf("depset is Bazel's; not available here")
		}),
	},
}

func (l *loader) resolve(from, label string) (string, error) {
	switch {
	case strings.HasPrefix(label, "//"):
		pkg, file, ok := strings.Cut(label[2:], ":")
		if !ok {
			return "", fmt.Errorf("label %q has no target", label)
		}
		return path.Join(pkg, file), nil
	case strings.HasPrefix(label, ":"):
		return path.Join(path.Dir(from), label[1:]), nil
	}
	return "", fmt.Errorf("cannot load %q: only //pkg:file and :file labels", label)
}

func (l *loader) load(rel string) (starlark.StringDict, error) {
	l.mu.Lock()
	if g, ok := l.cache[rel]; ok {
		l.mu.Unlock()
		return g, nil
	}
	l.mu.Unlock()
	root := l.root
	if root == "" {
		root = repoRoot
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	thread := &starlark.Thread{
		Name: rel,
		Load: func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
			dep, err := l.resolve(rel, module)
			if err != nil {
				return nil, err
			}
			return l.load(dep)
		},
	}
	g, err := starlark.ExecFileOptions(bazelOptions, thread, rel, src, l.predeclared)
	if err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			return nil, fmt.Errorf("%s", ee.Backtrace())
		}
		return nil, err
	}
	l.mu.Lock()
	l.cache[rel] = g
	l.mu.Unlock()
	return g, nil
}

// function returns a global function of a .bzl file (path from the root).
func function(t *testing.T, file, name string) starlark.Callable {
	t.Helper()
	g, err := bzl.load(file)
	if err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	fn, ok := g[name].(starlark.Callable)
	if !ok {
		t.Fatalf("%s has no function %s", file, name)
	}
	return fn
}

// call calls fn with Go strings, bools and ints as arguments.
func call(t *testing.T, fn starlark.Callable, args ...any) starlark.Value {
	t.Helper()
	var sargs starlark.Tuple
	for _, a := range args {
		switch v := a.(type) {
		case string:
			sargs = append(sargs, starlark.String(v))
		case bool:
			sargs = append(sargs, starlark.Bool(v))
		case int:
			sargs = append(sargs, starlark.MakeInt(v))
		case []string:
			l := make([]starlark.Value, len(v))
			for i, s := range v {
				l[i] = starlark.String(s)
			}
			sargs = append(sargs, starlark.NewList(l))
		case starlark.Value:
			sargs = append(sargs, v)
		default:
			t.Fatalf("call: unsupported argument %T", a)
		}
	}
	thread := &starlark.Thread{Name: "test"}
	v, err := starlark.Call(thread, fn, sargs, nil)
	if err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			t.Fatalf("%s(%v): %s", fn.Name(), args, ee.Backtrace())
		}
		t.Fatalf("%s(%v): %v", fn.Name(), args, err)
	}
	return v
}

// result splits a (value, error) pair returned by the parsers.
func result(t *testing.T, v starlark.Value) (starlark.Value, string) {
	t.Helper()
	tup, ok := v.(starlark.Tuple)
	if !ok || len(tup) != 2 {
		t.Fatalf("want a (value, error) pair, got %s", v)
	}
	e, ok := starlark.AsString(tup[1])
	if !ok {
		t.Fatalf("error part is %s, not a string", tup[1].Type())
	}
	return tup[0], e
}

// field reads a struct field as a Go string (strings) or its Starlark text.
func field(t *testing.T, v starlark.Value, name string) string {
	t.Helper()
	s, ok := v.(*starlarkstruct.Struct)
	if !ok {
		t.Fatalf("want a struct, got %s", v.Type())
	}
	f, err := s.Attr(name)
	if err != nil {
		t.Fatalf("struct has no field %s: %v", name, err)
	}
	if str, ok := starlark.AsString(f); ok {
		return str
	}
	return f.String()
}
