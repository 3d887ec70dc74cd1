package starlark_test

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// A repository_ctx over real directories, so the SDK repository rules
// (rules/sdk/cuda.bzl, rocm.bzl) run in go.starlark.net against SDK trees a
// test lays out as an installation is laid out, and write their repository
// into a temporary directory; the BUILD file they write is then evaluated
// with stand-ins that record each target and expand each glob over that
// directory. Programs the rules run (readlink, cp, sh) are the machine's;
// objdump is a stand-in that reads a library's soname from the file (the
// trees hold "SONAME libcublas.so.13" where the real library has its ELF
// dynamic section), and a tree's bin/ptxas is a script that lists the GPU
// names of the recorded ptxas --help.

// pathValue is repository_ctx.path()'s result.
type pathValue string

func (p pathValue) String() string        { return string(p) }
func (p pathValue) Type() string          { return "path" }
func (p pathValue) Freeze()               {}
func (p pathValue) Truth() starlark.Bool  { return true }
func (p pathValue) Hash() (uint32, error) { return starlark.String(p).Hash() }
func (p pathValue) AttrNames() []string   { return []string{"basename", "dirname", "exists", "readdir"} }

func (p pathValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "exists":
		_, err := os.Stat(string(p))
		return starlark.Bool(err == nil), nil
	case "basename":
		return starlark.String(filepath.Base(string(p))), nil
	case "dirname":
		return pathValue(filepath.Dir(string(p))), nil
	case "readdir":
		return starlark.NewBuiltin("readdir", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			entries, err := os.ReadDir(string(p))
			if err != nil {
				return nil, err
			}
			var out []starlark.Value
			for _, e := range entries {
				out = append(out, pathValue(filepath.Join(string(p), e.Name())))
			}
			return starlark.NewList(out), nil
		}), nil
	}
	return nil, nil
}

// repoCtx is one repository rule invocation: its attributes, its output
// directory and what the machine looks like to it.
type repoCtx struct {
	name    string
	attrs   starlark.StringDict
	out     string            // the repository's directory
	environ map[string]string // rctx.os.environ
	tools   string            // directory of the objdump stand-in
	machine bool              // which() finds the machine's programs (a test of the installed SDKs)
}

func newRepoCtx(t *testing.T, name string, attrs starlark.StringDict) *repoCtx {
	t.Helper()
	tools := t.TempDir()
	// objdump -p FILE: a real ELF file's dynamic section (binutils'
	// objdump, where the machine has it), else the soname a test tree's
	// library file names.
	objdump := "#!/bin/sh\n" +
		"if [ \"$(head -c 4 \"$2\" | od -An -c | tr -d ' ')\" = '177ELF' ] && [ -x /usr/bin/objdump ]; then exec /usr/bin/objdump -p \"$2\"; fi\n" +
		"sed -n 's/^SONAME /  SONAME               /p' \"$2\"\n"
	if err := os.WriteFile(filepath.Join(tools, "objdump"), []byte(objdump), 0o755); err != nil {
		t.Fatal(err)
	}
	return &repoCtx{name: name, attrs: attrs, out: t.TempDir(), environ: map[string]string{}, tools: tools}
}

func (c *repoCtx) abs(v starlark.Value) (string, error) {
	var s string
	switch x := v.(type) {
	case pathValue:
		s = string(x)
	case starlark.String:
		s = string(x)
	default:
		return "", fmt.Errorf("path: want a string or path, got %s", v.Type())
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(c.out, s)
	}
	return s, nil
}

func kwargs(args starlark.Tuple, kw []starlark.Tuple, names ...string) map[string]starlark.Value {
	m := map[string]starlark.Value{}
	for i, a := range args {
		if i < len(names) {
			m[names[i]] = a
		}
	}
	for _, kv := range kw {
		m[string(kv[0].(starlark.String))] = kv[1]
	}
	return m
}

func execResult(code int, stdout, stderr string) starlark.Value {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"return_code": starlark.MakeInt(code), "stdout": starlark.String(stdout), "stderr": starlark.String(stderr),
	})
}

// value is the starlark repository_ctx.
func (c *repoCtx) value() starlark.Value {
	b := func(name string, fn func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			return fn(args, kw)
		})
	}
	environ := starlark.NewDict(len(c.environ))
	for k, v := range c.environ {
		environ.SetKey(starlark.String(k), starlark.String(v))
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"name": starlark.String(c.name),
		"attr": starlarkstruct.FromStringDict(starlarkstruct.Default, c.attrs),
		"os":   starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"environ": environ}),
		"path": b("path", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			p, err := c.abs(args[0])
			return pathValue(p), err
		}),
		"which": b("which", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			s, _ := starlark.AsString(args[0])
			if s == "objdump" {
				return pathValue(filepath.Join(c.tools, "objdump")), nil
			}
			if c.machine {
				if p, err := exec.LookPath(s); err == nil {
					return pathValue(p), nil
				}
			}
			return starlark.None, nil // the SDKs under test are the trees, never the machine's
		}),
		"execute": b("execute", func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			argv := kwargs(args, kw, "arguments")["arguments"].(*starlark.List)
			var words []string
			for i := 0; i < argv.Len(); i++ {
				w, err := c.abs(argv.Index(i))
				if _, ok := argv.Index(i).(starlark.String); ok {
					w, err = string(argv.Index(i).(starlark.String)), nil
				}
				if err != nil {
					return nil, err
				}
				words = append(words, w)
			}
			cmd := exec.Command(words[0], words[1:]...)
			cmd.Dir = c.out
			cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent"}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				code = 1
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else {
					stderr.WriteString(err.Error())
				}
			}
			return execResult(code, stdout.String(), stderr.String()), nil
		}),
		"symlink": b("symlink", func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := kwargs(args, kw, "target", "link_name")
			target, err := c.abs(m["target"])
			if err != nil {
				return nil, err
			}
			name, err := c.abs(m["link_name"])
			if err != nil {
				return nil, err
			}
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return nil, err
			}
			return starlark.None, os.Symlink(target, name)
		}),
		"file": b("file", func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := kwargs(args, kw, "path", "content", "executable")
			p, err := c.abs(m["path"])
			if err != nil {
				return nil, err
			}
			content, _ := starlark.AsString(m["content"])
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			return starlark.None, os.WriteFile(p, []byte(content), 0o644)
		}),
		"read": b("read", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			p, err := c.abs(args[0])
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(p)
			return starlark.String(data), err
		}),
		"download": b("download", func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := kwargs(args, kw, "url", "output", "sha256")
			data, err := c.fetch(m["url"], m["sha256"])
			if err != nil {
				return nil, err
			}
			out, err := c.abs(m["output"])
			if err != nil {
				return nil, err
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return nil, err
			}
			return starlark.None, os.WriteFile(out, data, 0o644)
		}),
		"download_and_extract": b("download_and_extract", func(args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := kwargs(args, kw, "url", "output", "sha256", "type", "stripPrefix")
			data, err := c.fetch(m["url"], m["sha256"])
			if err != nil {
				return nil, err
			}
			out, err := c.abs(m["output"])
			if err != nil {
				return nil, err
			}
			strip, _ := starlark.AsString(m["stripPrefix"])
			return starlark.None, untar(data, out, strip)
		}),
	})
}

// fetch reads a file:// URL (a string or a one-element list) and checks its SHA-256.
func (c *repoCtx) fetch(url, sum starlark.Value) ([]byte, error) {
	if l, ok := url.(*starlark.List); ok {
		url = l.Index(0)
	}
	u, _ := starlark.AsString(url)
	data, err := os.ReadFile(strings.TrimPrefix(u, "file://"))
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(data)
	if want, _ := starlark.AsString(sum); want != hex.EncodeToString(h[:]) {
		return nil, fmt.Errorf("%s: sha256 %x, want %s", u, h, want)
	}
	return data, nil
}

// untar extracts an uncompressed tar, dropping strip/ from every name.
func untar(data []byte, out, strip string) error {
	r := tar.NewReader(strings.NewReader(string(data)))
	for {
		h, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(strings.TrimPrefix(h.Name, strip), "/")
		if name == "" {
			continue
		}
		p := filepath.Join(out, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(h.Linkname, p)
			}
		default:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				var b []byte
				if b, err = io.ReadAll(r); err == nil {
					err = os.WriteFile(p, b, os.FileMode(h.Mode)&0o777)
				}
			}
		}
		if err != nil {
			return err
		}
	}
}

// runRepositoryRule runs a repository rule's implementation (e.g.
// "_offload_cuda_repository_impl" of rules/sdk/cuda.bzl) on c; it returns
// the failure's message, or "".
func runRepositoryRule(t *testing.T, file, impl string, c *repoCtx) string {
	t.Helper()
	var calls []repoCall
	l := extensionLoader(&calls)
	l.predeclared["Label"] = starlark.NewBuiltin("Label", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		s, _ := starlark.AsString(args[0])
		return starlark.String("@rules_offload" + s), nil
	})
	g, err := l.load(file)
	if err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	fn, ok := g[impl].(starlark.Callable)
	if !ok {
		t.Fatalf("%s has no %s", file, impl)
	}
	_, err = starlark.Call(&starlark.Thread{Name: "repository"}, fn, starlark.Tuple{c.value()}, nil)
	if err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			return ee.Msg
		}
		return err.Error()
	}
	return ""
}

// target is one target of a generated BUILD file.
type target struct {
	rule  string
	attrs map[string]starlark.Value
}

func (tg target) str(name string) string {
	s, _ := starlark.AsString(tg.attrs[name])
	return s
}

func (tg target) list(name string) []string {
	l, _ := tg.attrs[name].(*starlark.List)
	var out []string
	for i := 0; l != nil && i < l.Len(); i++ {
		s, _ := starlark.AsString(l.Index(i))
		out = append(out, s)
	}
	return out
}

// repoBuild evaluates the repository's BUILD.bazel: each rule call becomes
// a target; glob matches files under the repository, through its links.
func repoBuild(t *testing.T, c *repoCtx) map[string]target {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(c.out, "BUILD.bazel"))
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles(t, c.out)
	targets := map[string]target{}
	rule := func(kind string) *starlark.Builtin {
		return starlark.NewBuiltin(kind, func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			m := kwargs(nil, kw)
			name, _ := starlark.AsString(m["name"])
			if _, dup := targets[name]; dup {
				return nil, fmt.Errorf("target %s defined twice", name)
			}
			targets[name] = target{rule: kind, attrs: m}
			return starlark.None, nil
		})
	}
	nothing := starlark.NewBuiltin("nothing", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return starlark.None, nil
	})
	glob := starlark.NewBuiltin("glob", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		m := kwargs(args, kw, "include", "exclude")
		match := func(v starlark.Value) []*regexp.Regexp {
			var res []*regexp.Regexp
			l, _ := v.(*starlark.List)
			for i := 0; l != nil && i < l.Len(); i++ {
				p, _ := starlark.AsString(l.Index(i))
				res = append(res, globRegexp(p))
			}
			return res
		}
		include, exclude := match(m["include"]), match(m["exclude"])
		var out []starlark.Value
		for _, f := range files {
			if anyMatch(include, f) && !anyMatch(exclude, f) {
				out = append(out, starlark.String(f))
			}
		}
		return starlark.NewList(out), nil
	})
	rules := starlark.StringDict{}
	for _, k := range []string{"offload_cuda", "offload_rocm", "offload_llvm", "cc_library", "offload_missing_library", "offload_device_code_library", "filegroup"} {
		rules[k] = rule(k)
	}
	thread := &starlark.Thread{Name: "BUILD", Load: func(*starlark.Thread, string) (starlark.StringDict, error) { return rules, nil }}
	predeclared := starlark.StringDict{"glob": glob, "package": nothing, "exports_files": nothing}
	for k, v := range rules {
		predeclared[k] = v
	}
	if _, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "BUILD.bazel", src, predeclared); err != nil {
		t.Fatalf("evaluating the repository's BUILD.bazel: %v\n%s", err, src)
	}
	return targets
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// globRegexp is Bazel's glob pattern: ** any path, * within one name.
func globRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case p[i] == '*':
			b.WriteString("[^/]*")
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// repoFiles lists the files under dir, following links (as Bazel's glob
// does in an external repository), relative and sorted.
func repoFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		if depth > 40 {
			t.Fatalf("%s: links nest too deep", rel)
		}
		entries, err := os.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			r := filepath.ToSlash(filepath.Join(rel, e.Name()))
			fi, err := os.Stat(filepath.Join(dir, r))
			if err != nil {
				continue // a dangling link
			}
			if fi.IsDir() {
				walk(r, depth+1)
			} else {
				out = append(out, r)
			}
		}
	}
	walk("", 0)
	sort.Strings(out)
	return out
}

// tree lays out files under root: "path" an empty file, "path=content" a
// file with that content, "path->target" a link, "path/" a directory.
func tree(t *testing.T, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p := e
		var err error
		switch {
		case strings.Contains(e, "->"):
			name, target, _ := strings.Cut(e, "->")
			p = filepath.Join(root, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(target, p)
			}
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(filepath.Join(root, e), 0o755)
		default:
			name, content, _ := strings.Cut(e, "=")
			p = filepath.Join(root, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte(content), 0o755)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
	}
}
