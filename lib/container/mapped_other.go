//go:build !linux

package container

// Map maps nothing here: the caller reads through the file.
func Map(s *Source) (Mapped, func()) { return nil, nil }

// MaxMapped is Linux's bound (mapped_linux.go), for callers' sizes.
const MaxMapped = 256 << 20

// CanMap says whether Map maps anything on this system.
const CanMap = false
