package bundler

import (
	"bytes"
	"errors"
	"runtime/debug"
)

// mapped is an input file mapped into memory. A device archive of
// thousands of small members is parsed, and its members copied to the
// outputs, straight from the mapping: no read into a buffer to parse and
// no second read to copy, which costs about a sixth of the CPU time of
// such a run and more of its wall time on a busy machine.
type mapped []byte

func (m mapped) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m).ReadAt(p, off)
}

// errInputChanged is what touching a mapped page that no longer exists
// (the input shrank while it was read) becomes.
var errInputChanged = errors.New("the input changed while it was read")

// faultGuard makes a memory fault in the calling goroutine an error in
// *err, naming file, instead of a crash: use it as
//
//	defer faultGuard(&err, file)()
//
// in every goroutine that reads a mapping.
func faultGuard(err *error, file string) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			*err = fileError(file, errInputChanged)
		}
	}
}
