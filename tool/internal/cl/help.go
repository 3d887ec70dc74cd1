package cl

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// EnumValue is one value an option accepts (cl::values), which LLVM's help
// lists under the option.
type EnumValue struct{ Name, Help string }

// genericOptions are the options LLVM's cl library gives every program;
// its --help shows them under "Generic Options".
var genericOptions = map[string]bool{"help": true, "help-list": true, "version": true,
	"help-hidden": true, "help-list-hidden": true}

// HelpRequest is what a help option asked for.
type HelpRequest struct {
	List   bool // --help-list: one list, no categories
	Hidden bool // --help-hidden, --help-list-hidden: hidden options too
}

// DeclareLLVMHelp declares the help and version options of LLVM's cl
// library and returns --version; Requested reads the help options back.
// The category names the program's own options in --help
// ("clang-offload-bundler options").
func (s *Set) DeclareLLVMHelp(category string) (version *Option) {
	s.Category = category
	s.Bool("help", "Display available options (--help-hidden for more)")
	s.Bool("help-list", "Display list of available options (--help-list-hidden for more)")
	version = s.Bool("version", "Display the version of this program")
	for _, name := range []string{"help-hidden", "help-list-hidden"} {
		o := s.Bool(name, "Display all available options")
		o.Hidden = true
	}
	return version
}

// Requested reports which help option was given, if any.
func (s *Set) Requested() (HelpRequest, bool) {
	on := func(name string) bool { o := s.byName[name]; return o != nil && o.On }
	switch {
	case on("help-list-hidden"):
		return HelpRequest{List: true, Hidden: true}, true
	case on("help-hidden"):
		return HelpRequest{Hidden: true}, true
	case on("help-list"):
		return HelpRequest{List: true}, true
	case on("help"):
		return HelpRequest{}, true
	}
	return HelpRequest{}, false
}

// PrintLLVMHelp prints help in the layout of LLVM's cl library: the
// generic options and the program's category, or one list (r.List), each
// sorted by name, descriptions aligned after the longest option, value
// lists under their option. Hidden options (ours, not LLVM's) show only
// with r.Hidden, so --help prints what LLVM's tool prints.
func (s *Set) PrintLLVMHelp(w io.Writer, r HelpRequest) {
	var generic, own []*Option
	for _, o := range s.opts {
		switch {
		case o.Hidden && !r.Hidden:
		case r.List && (o.Name == "help-list" || o.Name == "help-list-hidden"):
			// LLVM's list leaves out the option that asked for it.
		case r.List:
			own = append(own, o)
		case genericOptions[o.Name]:
			generic = append(generic, o)
		default:
			own = append(own, o)
		}
	}
	byName := func(opts []*Option) {
		sort.SliceStable(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	}
	byName(generic)
	byName(own)
	width := 0
	for _, o := range append(append([]*Option(nil), generic...), own...) {
		width = max(width, len(helpSpelling(o, s.LLVM14Help)))
	}
	fmt.Fprintf(w, "OVERVIEW: %s\n\nUSAGE: %s %s\n\nOPTIONS:\n", s.Overview, s.Prog, s.Usage)
	if !r.List {
		fmt.Fprintf(w, "\nGeneric Options:\n\n")
		s.printOptions(w, generic, width)
		fmt.Fprintf(w, "\n%s:\n\n", s.Category)
	}
	s.printOptions(w, own, width)
}

// helpSpelling is an option as LLVM's help writes it: --name, --name=<v>,
// or -o <v> for a one-letter name (-o=<v> in LLVM 14).
func helpSpelling(o *Option, llvm14 bool) string {
	spell := Spell(o.Name)
	switch {
	case o.Kind == Bool:
		return spell
	case len(o.Name) == 1 && !llvm14:
		return spell + " <" + o.ValueName + ">"
	}
	return spell + "=<" + o.ValueName + ">"
}

func (s *Set) printOptions(w io.Writer, opts []*Option, width int) {
	indent := strings.Repeat(" ", 2+width+3)
	for _, o := range opts {
		lines := strings.Split(o.Help, "\n")
		fmt.Fprintf(w, "  %-*s - %s\n", width, helpSpelling(o, s.LLVM14Help), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
		for _, v := range o.Enum {
			fmt.Fprintf(w, "    =%-*s -   %s\n", width-3, v.Name, v.Help)
		}
	}
}
