package compilecommands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
)

// layout is what `bazel run` gives the program: an execution root holding
// the command files, a runfiles tree linking them (the program's working
// directory), a workspace and the directory the user ran bazel in.
type layout struct {
	execroot, runfiles, workspace, working string
	script                                 string
}

// newLayout writes one command file, one argument a line and the driver
// last, and the program with its manifest naming it.
func newLayout(t *testing.T, workspaceName string, args []string) *layout {
	t.Helper()
	root := t.TempDir()
	l := &layout{
		execroot:  filepath.Join(root, "execroot", "_main"),
		runfiles:  filepath.Join(root, "compile_commands.runfiles", "_main"),
		workspace: filepath.Join(root, workspaceName),
	}
	l.working = filepath.Join(l.workspace, "sub")
	const short = "pkg/_offload/lib/a.compile_command"
	cmd := filepath.Join(l.execroot, "bazel-out/k8-fastbuild/bin", short)
	for _, d := range []string{filepath.Dir(cmd), filepath.Join(l.runfiles, "pkg/_offload/lib"), l.working} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cmd, []byte(strings.Join(args, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cmd, filepath.Join(l.runfiles, short)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(l.runfiles, "cc.commands"), []byte(short+"\n"), 0o644)
	tmpl, err := os.ReadFile("../../rules/private/compile_commands.sh")
	if err != nil {
		t.Fatal(err)
	}
	l.script = filepath.Join(root, "compile_commands.sh")
	os.WriteFile(l.script, []byte(strings.ReplaceAll(string(tmpl), "@MANIFEST@", "cc.commands")), 0o755)
	return l
}

// run runs the program as bazel run does, under the robustness caps.
func (l *layout) run(t *testing.T, args ...string) capped.Result {
	t.Helper()
	env := append(os.Environ(), "BUILD_WORKSPACE_DIRECTORY="+l.workspace, "BUILD_WORKING_DIRECTORY="+l.working)
	r, err := capped.Run(l.runfiles, env, capped.MaxRSS, capped.MaxTime, "bash", append([]string{l.script}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Code != 0 || r.Over != "" {
		t.Fatalf("%q: %v", args, r)
	}
	return r
}

type entry struct {
	Directory, File string
	Arguments       []string
}

func readDB(t *testing.T, path string) []entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var es []entry
	if err := json.Unmarshal(b, &es); err != nil {
		t.Fatalf("%s is not JSON: %v\n%q", path, err, b)
	}
	return es
}

// Arguments holding control characters (an ESC, a carriage return, a
// tab), quotes and backslashes, and a workspace whose path holds a
// backslash, come out as valid JSON that decodes to exactly those bytes:
// control characters were written raw (invalid JSON) and awk -v read the
// backslash of a path as an escape.
func TestArgumentsEscaped(t *testing.T) {
	args := []string{"-DGREETING=\"hi\\there\"", "-DESC=\x1b[2J", "-DCR=a\rb\tc\x01", "-Ibazel-out/k8/bin/gen", "src/a.cc", "/usr/bin/clang++"}
	l := newLayout(t, `ws\n`, args)
	l.run(t)
	es := readDB(t, filepath.Join(l.workspace, "compile_commands.json"))
	want := []entry{{
		Directory: l.workspace,
		File:      "src/a.cc",
		Arguments: []string{"/usr/bin/clang++", args[0], args[1], args[2], "-I" + l.execroot + "/bazel-out/k8/bin/gen", "src/a.cc"},
	}}
	if !reflect.DeepEqual(es, want) {
		t.Errorf("database %q, want %q", es, want)
	}
}

// A relative output directory is the one bazel run was started in
// (BUILD_WORKING_DIRECTORY), not the runfiles tree the program runs in.
func TestRelativeOutputDirectory(t *testing.T) {
	l := newLayout(t, "ws", []string{"src/a.cc", "/usr/bin/clang++"})
	r := l.run(t, "out")
	path := filepath.Join(l.working, "out", "compile_commands.json")
	if es := readDB(t, path); len(es) != 1 {
		t.Errorf("%s: %d entries", path, len(es))
	}
	if _, err := os.Stat(filepath.Join(l.runfiles, "out")); err == nil {
		t.Errorf("wrote into the runfiles tree")
	}
	if !strings.Contains(r.Output, "wrote "+path) {
		t.Errorf("output %q does not name %s", r.Output, path)
	}
	abs := filepath.Join(t.TempDir(), "abs")
	l.run(t, abs)
	readDB(t, filepath.Join(abs, "compile_commands.json"))
}
