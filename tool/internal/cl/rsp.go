package cl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Limits on what response files may expand to. LLVM has none: it expands
// everything it is given, so a 1.7 KB set of files that refer to each
// other many times (not in a cycle) makes 10^8 arguments and 1.5 GB of
// memory. No real command line comes near these.
const (
	MaxResponseArgs  = 1 << 20  // arguments after expansion
	MaxResponseBytes = 64 << 20 // bytes of those arguments
)

// ExpandResponseFiles replaces each @file argument with the arguments the
// file holds (GNU quoting: whitespace separates, quotes and backslashes
// escape), recursively, as LLVM tools do: relative names are relative to
// the working directory, an unreadable @file stays an argument, and a file
// that includes itself, directly or not, fails with LLVM's "recursive
// expansion of: '<file>'". Each file is read once; the expansion stops
// with an error past MaxResponseArgs arguments or MaxResponseBytes bytes.
func ExpandResponseFiles(args []string) ([]string, error) {
	e := &expander{files: map[string]*rspFile{}}
	if err := e.expand(args, nil); err != nil {
		return nil, err
	}
	return e.out, nil
}

type expander struct {
	out   []string
	named int // @file arguments expanded
	bytes int
	files map[string]*rspFile // each file read, by name
}

// rspFile is a response file: read once, however often it is named.
type rspFile struct {
	name string
	fi   os.FileInfo
	toks []string
}

func (e *expander) expand(args []string, stack []*rspFile) error {
	for _, a := range args {
		if err := e.charge(len(a)); err != nil {
			return err
		}
		f := e.file(a)
		if f == nil {
			e.out = append(e.out, a)
			continue
		}
		for _, g := range stack {
			if os.SameFile(g.fi, f.fi) {
				return errorf("recursive expansion of: '%s'", absName(g.name))
			}
		}
		e.named++
		if err := e.expand(f.toks, append(stack, f)); err != nil {
			return err
		}
	}
	return nil
}

// file returns the response file an @file argument names, or nil for
// other arguments and files that cannot be read (LLVM keeps those as
// plain arguments).
func (e *expander) file(a string) *rspFile {
	if !strings.HasPrefix(a, "@") || len(a) == 1 {
		return nil
	}
	name := a[1:]
	if f, ok := e.files[name]; ok {
		return f
	}
	var f *rspFile
	if fi, err := os.Stat(name); err == nil {
		if data, err := os.ReadFile(name); err == nil {
			f = &rspFile{name: name, fi: fi, toks: splitGNU(string(data))}
		}
	}
	e.files[name] = f
	return f
}

// charge counts one argument of n bytes (an @file one included) against
// the limits.
func (e *expander) charge(n int) error {
	e.bytes += n
	if len(e.out) >= MaxResponseArgs || e.named > MaxResponseArgs || e.bytes > MaxResponseBytes {
		return errorf("response files expand to more than %d arguments or %d bytes: refused", MaxResponseArgs, MaxResponseBytes)
	}
	return nil
}

// absName is the file name LLVM prints: absolute, from the working
// directory.
func absName(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return fmt.Sprint(name)
}
