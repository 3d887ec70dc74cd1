//go:build !linux

package bundler

// mapInput maps nothing here: the caller reads through the file.
func mapInput(src *source) (mapped, func()) { return nil, nil }

var mapInputs = false
