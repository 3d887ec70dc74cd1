// Package cl parses command lines the way LLVM's cl library does, so that
// the offload tool accepts every spelling LLVM's tools accept: -opt and
// --opt, -opt=value and -opt value, repeated and comma-separated lists,
// boolean options with an optional =true/=false, response files (@file) and
// "--" to end options.
package cl

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Kind says how an option takes values.
type Kind int

const (
	// Bool takes no value, or an explicit =true/=false/=1/=0.
	Bool Kind = iota
	// Value takes exactly one value; the last occurrence wins.
	Value
	// List takes one value per occurrence and keeps them all.
	List
)

// Option is one declared option and, after Parse, what the command line said.
type Option struct {
	Name      string
	Kind      Kind
	ValueName string
	Help      string
	Hidden    bool
	// Comma splits each value of a List on commas (cl::CommaSeparated).
	Comma bool

	// Required makes CheckRequired insist on the option (cl::Required).
	Required bool
	// Enum lists the values PrintLLVMHelp shows under the option.
	Enum []EnumValue

	Values []string // every value given, in order
	Count  int      // occurrences
	On     bool     // a Bool's final value
}

// Spell writes an option name as LLVM prints it: one dash for one-letter
// names, two otherwise.
func Spell(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Given reports whether the option occurred on the command line.
func (o *Option) Given() bool { return o.Count > 0 }

// Value returns the last value given, or "".
func (o *Option) Value() string {
	if len(o.Values) == 0 {
		return ""
	}
	return o.Values[len(o.Values)-1]
}

// Set is a collection of options for one program.
type Set struct {
	Prog     string
	Overview string
	Usage    string
	// Category titles the program's options in PrintLLVMHelp.
	Category string
	// LLVM14Help writes one-letter options with values as LLVM 14 did,
	// -o=<v>, instead of -o <v>.
	LLVM14Help bool
	opts       []*Option
	byName     map[string]*Option
	Positional []string
	// MinPositional makes CheckRequired insist on that many positional
	// arguments (cl::OneOrMore positionals have 1).
	MinPositional int
}

// NewSet returns an empty option set for the program prog.
func NewSet(prog, overview, usage string) *Set {
	return &Set{Prog: prog, Overview: overview, Usage: usage, byName: map[string]*Option{}}
}

func (s *Set) add(o *Option) *Option {
	s.opts = append(s.opts, o)
	s.byName[o.Name] = o
	return o
}

// Bool declares a boolean option.
func (s *Set) Bool(name, help string) *Option {
	return s.add(&Option{Name: name, Kind: Bool, Help: help})
}

// String declares an option with one value.
func (s *Set) String(name, valueName, help string) *Option {
	return s.add(&Option{Name: name, Kind: Value, ValueName: valueName, Help: help})
}

// List declares a repeatable option; comma also splits values on ','.
func (s *Set) List(name, valueName, help string, comma bool) *Option {
	return s.add(&Option{Name: name, Kind: List, ValueName: valueName, Help: help, Comma: comma})
}

// CheckRequired reports, in LLVM's words, the first required option not
// given, or too few positional arguments. Programs call it after handling
// --help and --version, which LLVM honours even when these are missing.
func (s *Set) CheckRequired() error {
	var errs []error
	if n := s.MinPositional; len(s.Positional) < n {
		errs = append(errs, errorf("Not enough positional command line arguments specified!\nMust specify at least %d positional argument%s: See: %s --help", n, plural(n), s.Prog))
	}
	for _, o := range s.opts {
		if o.Required && !o.Given() {
			errs = append(errs, errorf("for the %s option: must be specified at least once!", Spell(o.Name)))
		}
	}
	return s.join(errs)
}

// WithRequired adds CheckRequired's complaints to a Parse error, as LLVM
// reports both before it exits.
func (s *Set) WithRequired(parseErr error) error {
	return s.join([]error{parseErr, s.CheckRequired()})
}

// join makes one error of several, each line after the first prefixed
// with the program name as the caller prefixes the first: LLVM reports
// every problem of a command line, not just the first.
func (s *Set) join(errs []error) error {
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &Error{Msg: strings.Join(msgs, "\n"+s.Prog+": ")}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Alias makes alias another spelling of the option name.
func (s *Set) Alias(alias, name string) {
	s.byName[alias] = s.byName[name]
}

// Error is a command-line error; its text follows LLVM's wording.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Parse reads args (without the program name), expanding @response files.
func (s *Set) Parse(args []string) error {
	args, err := ExpandResponseFiles(args)
	if err != nil {
		return err
	}
	var errs []error // LLVM reports every bad argument and goes on
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			s.Positional = append(s.Positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			s.Positional = append(s.Positional, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value, hasValue := "", false
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name, value, hasValue = name[:eq], name[eq+1:], true
		}
		o := s.byName[name]
		if o == nil {
			errs = append(errs, s.unknown(a))
			continue
		}
		if o.Kind != Bool && !hasValue {
			if i+1 >= len(args) {
				errs = append(errs, errorf("for the %s option: requires a value!", Spell(o.Name)))
				continue
			}
			i++
			value, hasValue = args[i], true
		}
		if err := o.set(value, hasValue); err != nil {
			errs = append(errs, err)
		}
	}
	return s.join(errs)
}

func (o *Option) set(value string, hasValue bool) error {
	o.Count++
	switch o.Kind {
	case Bool:
		if !hasValue {
			o.On = true
			return nil
		}
		switch value {
		case "true", "TRUE", "True", "1":
			o.On = true
		case "false", "FALSE", "False", "0":
			o.On = false
		default:
			return errorf("for the %s option: '%s' is invalid value for boolean argument! Try 0 or 1", Spell(o.Name), value)
		}
	case Value:
		o.Values = append(o.Values, value)
	case List:
		if o.Comma {
			o.Values = append(o.Values, strings.Split(value, ",")...)
		} else {
			o.Values = append(o.Values, value)
		}
	}
	return nil
}

func (s *Set) unknown(arg string) error {
	msg := fmt.Sprintf("Unknown command line argument '%s'.  Try: '%s --help'", arg, s.Prog)
	if near := s.nearest(arg); near != "" {
		if _, value, ok := strings.Cut(arg, "="); ok {
			near += "=" + value
		}
		msg += fmt.Sprintf("\n%s: Did you mean '%s'?", s.Prog, near)
	}
	return &Error{Msg: msg}
}

// nearest returns the spelling of the visible option closest to arg by
// edit distance, as LLVM's LookupNearestOption (which has no cut-off).
func (s *Set) nearest(arg string) string {
	name := strings.TrimLeft(arg, "-")
	if eq := strings.IndexByte(name, '='); eq >= 0 {
		name = name[:eq]
	}
	best, bestD := "", -1
	for _, o := range s.opts {
		if o.Hidden {
			continue
		}
		if d := editDistance(name, o.Name); bestD < 0 || d < bestD {
			best, bestD = o.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return Spell(best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// PrintHelp writes LLVM-style help: overview, usage and the visible options.
func (s *Set) PrintHelp(w io.Writer) {
	fmt.Fprintf(w, "OVERVIEW: %s\n\nUSAGE: %s %s\n\nOPTIONS:\n", s.Overview, s.Prog, s.Usage)
	opts := append([]*Option(nil), s.opts...)
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	for _, o := range opts {
		if o.Hidden {
			continue
		}
		spell := Spell(o.Name)
		if o.Kind != Bool {
			spell += "=<" + o.ValueName + ">"
		}
		fmt.Fprintf(w, "  %-28s - %s\n", spell, o.Help)
	}
}

// splitGNU tokenises a response file the way gcc and LLVM's
// TokenizeGNUCommandLine do.
func splitGNU(s string) []string {
	var toks []string
	var cur strings.Builder
	inTok := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inTok = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			inTok = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			// LLVM drops empty tokens, such as a quoted "".
			if inTok && cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
				inTok = false
			}
		default:
			cur.WriteByte(c)
			inTok = true
		}
	}
	if inTok && cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks
}
