package wrapper

import (
	"fmt"
	"strings"
)

// triple is the part of a target triple the generators need.
type triple struct {
	str     string
	arch    string // first component as written
	machine string // "x86_64", "aarch64" or "" for targets without an object writer
	ptrSize int
	// typeChar prefixes section types in assembly: '@', or '%' where '@'
	// starts a comment (32-bit Arm).
	typeChar byte
}

// parseTriple accepts ELF targets of known architectures. LLVM's wrapper also
// handles COFF and Mach-O hosts; this package does not.
func parseTriple(s string) (triple, error) {
	if s == "" || strings.ContainsAny(s, " \t\n\"\\\x00") {
		return triple{}, targetErr("'%s': unsupported target triple", s)
	}
	arch, rest, _ := strings.Cut(s, "-")
	t := triple{str: s, arch: arch, typeChar: '@', ptrSize: 8}
	switch {
	case arch == "x86_64" || arch == "amd64":
		t.machine = "x86_64"
	case arch == "aarch64" || arch == "arm64":
		t.machine = "aarch64"
	case arch == "i386" || arch == "i486" || arch == "i586" || arch == "i686":
		t.ptrSize = 4
	case strings.HasPrefix(arch, "arm") || strings.HasPrefix(arch, "thumb"):
		t.ptrSize, t.typeChar = 4, '%'
	case arch == "riscv32" || arch == "mips" || arch == "mipsel" || arch == "powerpc" || arch == "ppc32":
		t.ptrSize = 4
	case arch == "riscv64" || arch == "powerpc64" || arch == "powerpc64le" || arch == "ppc64" ||
		arch == "ppc64le" || arch == "s390x" || arch == "loongarch64" || arch == "mips64" ||
		arch == "mips64el" || arch == "sparcv9" || arch == "aarch64_be":
	default:
		return triple{}, targetErr("'%s': unsupported target triple", s)
	}
	for _, os := range []string{"darwin", "macos", "ios", "tvos", "watchos", "windows", "win32", "mingw", "cygwin", "uefi"} {
		if strings.Contains(rest, os) {
			return triple{}, targetErr("'%s': only ELF hosts are supported", s)
		}
	}
	return t, nil
}

// targetError is an ErrTarget with LLVM's wording.
type targetError struct{ msg string }

func (e *targetError) Error() string { return "wrapper: " + e.msg }
func (e *targetError) Unwrap() error { return ErrTarget }

func targetErr(format string, a ...any) error { return &targetError{fmt.Sprintf(format, a...)} }
