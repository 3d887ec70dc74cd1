package cl

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// testSet declares options of every kind, as the offload tools do.
type testSet struct {
	*Set
	out, image, archive, targets, verbose *Option
}

func newTestSet() *testSet {
	s := NewSet("prog", "a test program", "[options] FILE...")
	return &testSet{
		Set:     s,
		out:     s.String("o", "file", "output"),
		image:   s.List("image", "k=v,...", "an image", false),
		archive: s.Bool("archive", "write an archive"),
		targets: s.List("targets", "t,...", "targets", true),
		verbose: s.Bool("verbose", "say more"),
	}
}

func parse(t *testing.T, args ...string) *testSet {
	t.Helper()
	s := newTestSet()
	if err := s.Parse(args); err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return s
}

// One and two dashes are the same option, and a value may follow '=' or
// come as the next argument.
func TestSpellings(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "x"}, {"--o", "x"}, {"-o=x"}, {"--o=x"},
	} {
		if s := parse(t, args...); s.out.Value() != "x" || s.out.Count != 1 || len(s.Positional) != 0 {
			t.Errorf("%q: value %q count %d positional %q", args, s.out.Value(), s.out.Count, s.Positional)
		}
	}
	for _, args := range [][]string{
		{"-image", "file=a,triple=t"}, {"--image", "file=a,triple=t"}, {"-image=file=a,triple=t"}, {"--image=file=a,triple=t"},
	} {
		if s := parse(t, args...); !reflect.DeepEqual(s.image.Values, []string{"file=a,triple=t"}) {
			t.Errorf("%q: values %q", args, s.image.Values)
		}
	}
	// A separate value is taken verbatim, even when it looks like an option.
	if s := parse(t, "-o", "-archive"); s.out.Value() != "-archive" || s.archive.On {
		t.Errorf("-o -archive: out %q archive %v", s.out.Value(), s.archive.On)
	}
	// An empty value after '=' is a value.
	if s := parse(t, "-o="); !s.out.Given() || s.out.Value() != "" {
		t.Errorf("-o=: given %v value %q", s.out.Given(), s.out.Value())
	}
}

func TestValueLastWins(t *testing.T) {
	s := parse(t, "-o", "a", "--o=b")
	if s.out.Value() != "b" || s.out.Count != 2 || !reflect.DeepEqual(s.out.Values, []string{"a", "b"}) {
		t.Errorf("value %q count %d values %q", s.out.Value(), s.out.Count, s.out.Values)
	}
	if v := newTestSet().out.Value(); v != "" {
		t.Errorf("unset option has value %q", v)
	}
}

func TestBool(t *testing.T) {
	cases := []struct {
		args []string
		on   bool
	}{
		{[]string{"-archive"}, true},
		{[]string{"--archive"}, true},
		{[]string{"--archive=true"}, true},
		{[]string{"--archive=TRUE"}, true},
		{[]string{"--archive=True"}, true},
		{[]string{"--archive=1"}, true},
		{[]string{"--archive=false"}, false},
		{[]string{"--archive=FALSE"}, false},
		{[]string{"--archive=False"}, false},
		{[]string{"--archive=0"}, false},
		{[]string{"--archive", "--archive=0"}, false},
		{[]string{"--archive=0", "-archive"}, true},
	}
	for _, c := range cases {
		s := parse(t, c.args...)
		if s.archive.On != c.on || !s.archive.Given() {
			t.Errorf("%q: on %v given %v, want on %v", c.args, s.archive.On, s.archive.Given(), c.on)
		}
	}
	// A bool never takes the next argument as its value.
	if s := parse(t, "--archive", "false"); !s.archive.On || !reflect.DeepEqual(s.Positional, []string{"false"}) {
		t.Errorf("--archive false: on %v positional %q", s.archive.On, s.Positional)
	}
	if s := parse(t); s.archive.On || s.archive.Given() {
		t.Error("bool set without being given")
	}
	err := newTestSet().Parse([]string{"--archive=yes"})
	const want = "for the --archive option: 'yes' is invalid value for boolean argument! Try 0 or 1"
	if err == nil || err.Error() != want {
		t.Errorf("--archive=yes: %v, want %q", err, want)
	}
}

func TestLists(t *testing.T) {
	s := parse(t, "--targets=a,b", "-targets", "c", "--image=x,y", "--image", "z")
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(s.targets.Values, want) {
		t.Errorf("comma list: %q, want %q", s.targets.Values, want)
	}
	if want := []string{"x,y", "z"}; !reflect.DeepEqual(s.image.Values, want) {
		t.Errorf("plain list keeps commas: %q, want %q", s.image.Values, want)
	}
	if s.targets.Count != 2 || s.image.Count != 2 {
		t.Errorf("counts %d %d, want 2 2", s.targets.Count, s.image.Count)
	}
	// Empty items survive, as in cl::CommaSeparated.
	if s := parse(t, "--targets=a,,b,"); !reflect.DeepEqual(s.targets.Values, []string{"a", "", "b", ""}) {
		t.Errorf("empty items: %q", s.targets.Values)
	}
}

func TestPositionalAndDashDash(t *testing.T) {
	s := parse(t, "in1", "-o", "out", "-", "in2", "--", "-archive", "--o=x", "@nofile")
	if want := []string{"in1", "-", "in2", "-archive", "--o=x", "@nofile"}; !reflect.DeepEqual(s.Positional, want) {
		t.Errorf("positional %q, want %q", s.Positional, want)
	}
	if s.archive.On || s.out.Value() != "out" {
		t.Errorf("options after -- were parsed: archive %v out %q", s.archive.On, s.out.Value())
	}
}

func TestMissingValue(t *testing.T) {
	for _, args := range [][]string{{"-o"}, {"--image"}, {"in", "--targets"}} {
		err := newTestSet().Parse(args)
		name := strings.TrimLeft(args[len(args)-1], "-")
		want := "for the " + Spell(name) + " option: requires a value!"
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", args, err, want)
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%q: error is %T, not *cl.Error", args, err)
		}
	}
}

func TestUnknownOption(t *testing.T) {
	cases := []struct{ arg, want string }{
		{"-archiv", "Unknown command line argument '-archiv'.  Try: 'prog --help'\nprog: Did you mean '--archive'?"},
		{"--imagee=x", "Unknown command line argument '--imagee=x'.  Try: 'prog --help'\nprog: Did you mean '--image=x'?"},
		{"-x", "Unknown command line argument '-x'.  Try: 'prog --help'\nprog: Did you mean '-o'?"},
		{"--zzzzzz", "Unknown command line argument '--zzzzzz'.  Try: 'prog --help'\nprog: Did you mean '-o'?"},
	}
	for _, c := range cases {
		err := newTestSet().Parse([]string{c.arg})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %q, want %q", c.arg, err, c.want)
		}
	}
	// Hidden options are not suggested.
	s := newTestSet()
	s.verbose.Hidden = true
	if err := s.Parse([]string{"--verbos"}); err == nil || strings.Contains(err.Error(), "Did you mean '--verbose'") {
		t.Errorf("hidden option suggested: %v", err)
	}
}

func TestAlias(t *testing.T) {
	s := newTestSet()
	s.Alias("output", "o")
	if err := s.Parse([]string{"--output=f"}); err != nil || s.out.Value() != "f" {
		t.Errorf("alias: %v %q", err, s.out.Value())
	}
}

func writeRsp(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResponseFiles(t *testing.T) {
	dir := t.TempDir()
	inner := writeRsp(t, dir, "inner.rsp", "--archive\n'in 3'\n")
	outer := writeRsp(t, dir, "outer.rsp",
		"-o \"out file\"\t--targets=a,b\r\n"+
			`--image='file=x y,triple=t' in\ 1 "q\"uote" 'it''s' a"b c"d`+"\n"+
			"@"+inner+"\n")
	s := parse(t, "first", "@"+outer, "last")
	if s.out.Value() != "out file" {
		t.Errorf("-o %q", s.out.Value())
	}
	if !reflect.DeepEqual(s.targets.Values, []string{"a", "b"}) || !reflect.DeepEqual(s.image.Values, []string{"file=x y,triple=t"}) {
		t.Errorf("targets %q image %q", s.targets.Values, s.image.Values)
	}
	if !s.archive.On {
		t.Error("the nested response file was not read")
	}
	want := []string{"first", "in 1", `q"uote`, "its", "ab cd", "in 3", "last"}
	if !reflect.DeepEqual(s.Positional, want) {
		t.Errorf("positional %q, want %q", s.Positional, want)
	}
}

func TestResponseFileEdgeCases(t *testing.T) {
	dir := t.TempDir()
	// An unreadable @file stays an argument; a lone @ is an argument.
	missing := "@" + filepath.Join(dir, "missing.rsp")
	if got, err := ExpandResponseFiles([]string{missing, "@"}); err != nil || !reflect.DeepEqual(got, []string{missing, "@"}) {
		t.Errorf("missing file: %q %v", got, err)
	}
	// A backslash escapes even a newline (LLVM's TokenizeGNUCommandLine),
	// an unterminated quote runs to the end, and a final backslash is kept.
	p := writeRsp(t, dir, "edge.rsp", "a\\\nb 'c d\\")
	if got, _ := ExpandResponseFiles([]string{"@" + p}); !reflect.DeepEqual(got, []string{"a\nb", "c d\\"}) {
		t.Errorf("edge cases: %q", got)
	}
	// A response file that includes itself stops with an error.
	loop := filepath.Join(dir, "loop.rsp")
	writeRsp(t, dir, "loop.rsp", "x @"+loop)
	if _, err := ExpandResponseFiles([]string{"@" + loop}); err == nil {
		t.Error("a self-including response file expanded without error")
	}
}

func TestPrintHelp(t *testing.T) {
	s := newTestSet()
	s.verbose.Hidden = true
	var b bytes.Buffer
	s.PrintHelp(&b)
	want := "OVERVIEW: a test program\n\nUSAGE: prog [options] FILE...\n\nOPTIONS:\n" +
		"  --archive                    - write an archive\n" +
		"  --image=<k=v,...>            - an image\n" +
		"  -o=<file>                    - output\n" +
		"  --targets=<t,...>            - targets\n"
	if b.String() != want {
		t.Errorf("help:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The error texts match what LLVM 22's cl prints for the same command
// line; llvm-offload-binary-22 has the options -o, --image and --archive.
func TestMatchesLLVM(t *testing.T) {
	tool := llvmtest.Tool(t, "llvm-offload-binary-22")
	cases := [][]string{
		{"-archiv"},
		{"-imagee"},
		{"-o"},
		{"--image"},
		{"--archive=maybe"},
		{"-archive=2"},
	}
	for _, args := range cases {
		prog := filepath.Base(tool)
		cmd := exec.Command(tool, args...)
		cmd.Args[0] = prog // LLVM names argv[0] in "Try: '... --help'"
		cmd.Dir = t.TempDir()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if cmd.Run() == nil {
			t.Fatalf("%q: LLVM accepted it", args)
		}
		s := NewSet(prog, "", "")
		s.String("o", "file", "")
		s.List("image", "<key>=<value>,...", "", false)
		s.Bool("archive", "")
		s.Bool("help", "")
		s.Bool("version", "")
		perr := s.Parse(args)
		if perr == nil {
			t.Fatalf("%q: accepted", args)
		}
		if got := prog + ": " + perr.Error() + "\n"; got != stderr.String() {
			t.Errorf("%q:\nours: %q\nLLVM: %q", args, got, stderr.String())
		}
	}
}

// TestResponseFileDropsEmptyTokens: LLVM's GNU tokenizer keeps no empty
// arguments, so a quoted "" adds nothing.
func TestResponseFileDropsEmptyTokens(t *testing.T) {
	p := writeRsp(t, t.TempDir(), "e.rsp", `"" -o '' x`)
	got, err := ExpandResponseFiles([]string{"@" + p})
	if err != nil || !reflect.DeepEqual(got, []string{"-o", "x"}) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestCheckRequired: cl::Required options and required positionals, in
// LLVM's words and order, every one missing (cross-checked against the
// LLVM tools by the CLI tests).
func TestCheckRequired(t *testing.T) {
	// Parse goes on after a bad argument, and WithRequired adds what is
	// missing, as LLVM prints both.
	p := NewSet("prog", "", "")
	p.String("o", "file", "").Required = true
	err := p.WithRequired(p.Parse([]string{"--bogus", "--o"}))
	want := "Unknown command line argument '--bogus'.  Try: 'prog --help'\nprog: Did you mean '-o'?\n" +
		"prog: for the -o option: requires a value!\nprog: for the -o option: must be specified at least once!"
	if err == nil || err.Error() != want {
		t.Errorf("WithRequired: got %q, want %q", err, want)
	}

	s := NewSet("prog", "", "")
	out := s.String("o", "file", "")
	kind := s.String("kind", "k", "")
	out.Required, kind.Required, s.MinPositional = true, true, 1
	cases := []struct {
		args []string
		want string
	}{
		{nil, "Not enough positional command line arguments specified!\nMust specify at least 1 positional argument: See: prog --help\n" +
			"prog: for the -o option: must be specified at least once!\nprog: for the --kind option: must be specified at least once!"},
		{[]string{"-o", "x", "in"}, "for the --kind option: must be specified at least once!"},
		{[]string{"-o", "x", "--kind=hip"}, "Not enough positional command line arguments specified!\nMust specify at least 1 positional argument: See: prog --help"},
		{[]string{"-o", "x", "--kind=hip", "in"}, ""},
	}
	for _, c := range cases {
		s.Positional, out.Values, out.Count, kind.Values, kind.Count = nil, nil, 0, nil, 0
		if err := s.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := s.CheckRequired(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.args, got, c.want)
		}
	}
}
