package packager

import (
	"errors"

	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// coffError gives coffobj's errors the offloadbin error the rest of the
// package goes by: a truncation is offloadbin.ErrTruncated, any other
// defect offloadbin.ErrFormat and carries LLVM's message for it.
func coffError(err error) error {
	var fe *coffobj.FormatError
	switch {
	case !errors.As(err, &fe):
		return err
	case fe.Truncated:
		return &wrapped{err, offloadbin.ErrTruncated, ": " + offloadbin.ErrTruncated.Error()}
	}
	return &worded{wrapped{err, offloadbin.ErrFormat, ""}, fe.Msg}
}

// wrapped is err, also matching kind, its text followed by suffix.
type wrapped struct {
	err, kind error
	suffix    string
}

func (e *wrapped) Error() string   { return e.err.Error() + e.suffix }
func (e *wrapped) Unwrap() []error { return []error{e.err, e.kind} }

// worded is a defect that LLVM reports with a message of its own.
type worded struct {
	wrapped
	msg string
}

func (e *worded) LLVMMessage() string { return e.msg }
