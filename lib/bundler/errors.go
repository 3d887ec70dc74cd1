package bundler

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// Error is a bundler failure. Msg follows LLVM's wording; File, when set,
// names the file the problem is in, in front, where LLVM names it too.
// Context is ours: where the problem is, for messages LLVM prints without
// a file name, so it follows LLVM's text instead of preceding it.
type Error struct {
	File    string
	Msg     string
	Err     error // underlying cause, if any
	Context string
	bare    bool // LLVM names no file here: fileError leaves it so
}

func (e *Error) Error() string {
	s := e.Msg
	if e.File != "" {
		s = fmt.Sprintf("'%s': %s", e.File, e.Msg)
	}
	if e.Context != "" {
		s += " (" + e.Context + ")"
	}
	return s
}

// inFile reports a problem found in file whose LLVM message names no file:
// the name goes after LLVM's text. member, if set, is the archive member.
func inFile(file, member string, err error) error {
	where := fmt.Sprintf("in '%s'", file)
	if member != "" {
		where += ", member " + member
	}
	var be *Error
	if errors.As(err, &be) {
		return &Error{Msg: be.Msg, Err: be.Err, Context: where}
	}
	return &Error{Msg: describe(err), Err: err, Context: where}
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// fileError reports a problem with a named file, as LLVM's createFileError.
func fileError(file string, err error) error {
	var be *Error
	if errors.As(err, &be) && be.File == "" && !be.bare {
		return &Error{File: file, Msg: be.Msg, Err: be.Err}
	}
	if errors.As(err, &be) {
		return err
	}
	// LLVM's reader of the object names no file for a bad string table.
	var te *elfobj.StringTableError
	if errors.As(err, &te) {
		return &Error{Msg: te.LLVM(), Err: err, bare: true}
	}
	return &Error{File: file, Msg: describe(err), Err: err}
}

// describe renders an OS error the way LLVM prints a std::error_code:
// strerror's text, capitalised.
func describe(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return capitalize(errno.Error())
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return capitalize(pe.Err.Error())
	}
	return err.Error()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// objcopyError is, for a host object that llvm-objcopy (which LLVM's
// bundler runs to add and remove bundle sections) refuses, the bundler's
// error, after objcopy's own line on stderr, as LLVM prints them; nil for
// other errors.
func objcopyError(cfg *Config, err error) error {
	var se *elfobj.SymbolSectionError
	var te *elfobj.StringTableError
	switch {
	case errors.As(err, &se):
		fmt.Fprintf(cfg.Stderr, "llvm-objcopy: error: %s\n", se.Objcopy())
	case errors.As(err, &te):
		fmt.Fprintf(cfg.Stderr, "llvm-objcopy: error: %s\n", te.LLVM())
	default:
		return nil
	}
	return &Error{Msg: "'llvm-objcopy' tool failed", Err: err, bare: true}
}
