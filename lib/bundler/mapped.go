package bundler

import "github.com/rules-offload/rules_offload/lib/container"

// mapInputs can be turned off by tests, to cover the path without a
// mapping.
var mapInputs = container.CanMap

// mapInput maps src when it is a whole regular file small enough
// (container.Map); it returns nil, and the caller reads through the file,
// otherwise.
func mapInput(src *source) (container.Mapped, func()) {
	if !mapInputs {
		return nil, nil
	}
	return container.Map(&container.Source{Name: src.name, R: src.r, Size: src.size})
}

// faultGuard makes a memory fault in the calling goroutine an error in
// *err, naming file, instead of a crash: use it as
//
//	defer faultGuard(&err, file)()
//
// in every goroutine that reads a mapping.
func faultGuard(err *error, file string) func() {
	return container.FaultGuard(err, func(e error) error { return fileError(file, e) })
}
