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
	// coff is set for COFF hosts, which only the IR forms target.
	coff bool
}

// parseTriple accepts ELF and COFF targets of known architectures, telling
// them apart as LLVM's wrapper does. It refuses Mach-O hosts: LLVM 22 writes
// a module for them that clang cannot compile (.text.startup is not a
// Mach-O section).
func parseTriple(s string) (triple, error) {
	if s == "" || strings.ContainsAny(s, " \t\n\"\\\x00") {
		return triple{}, targetErr("'%s': unsupported target triple", s)
	}
	arch, _, _ := strings.Cut(s, "-")
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
	switch llvmObjectFormat(s) {
	case "coff":
		t.coff = true
	case "macho":
		return triple{}, targetErr("'%s': Mach-O hosts are not supported (LLVM 22's wrapper module for them does not compile)", s)
	case "elf":
	default:
		return triple{}, targetErr("'%s': only ELF and COFF hosts are supported", s)
	}
	return t, nil
}

// llvmObjectFormat is the object format llvm::Triple gives the name as
// written (llvm-offload-wrapper does not normalize it): a suffix of the
// fourth component names it; else the third, the OS, implies COFF
// (windows, win32, uefi), Mach-O (Apple's systems) or ELF. So
// x86_64-w64-mingw32, whose OS LLVM does not recognize unnormalized, is ELF.
func llvmObjectFormat(s string) string {
	c := strings.SplitN(s, "-", 4)
	if len(c) == 4 {
		for _, f := range []string{"xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"} {
			if strings.HasSuffix(c[3], f) {
				return f
			}
		}
	}
	if len(c) >= 3 {
		for _, os := range []string{"win32", "windows", "uefi"} {
			if strings.HasPrefix(c[2], os) {
				return "coff"
			}
		}
		for _, os := range []string{"darwin", "macos", "ios", "tvos", "watchos", "bridgeos", "driverkit", "xros", "visionos"} {
			if strings.HasPrefix(c[2], os) {
				return "macho"
			}
		}
	}
	return "elf"
}

// nativeELF refuses hosts the C, assembly and object forms cannot target:
// COFF, and any triple naming a Windows or Apple system even where LLVM
// reads it as ELF.
func (t triple) nativeELF() error {
	if t.coff {
		return targetErr("'%s': COFF hosts are supported by the LLVM IR and bitcode forms only", t.str)
	}
	_, rest, _ := strings.Cut(t.str, "-")
	for _, os := range []string{"darwin", "macos", "ios", "tvos", "watchos", "windows", "win32", "mingw", "cygwin", "uefi"} {
		if strings.Contains(rest, os) {
			return targetErr("'%s': only ELF hosts are supported by the C, assembly and object forms", t.str)
		}
	}
	return nil
}

// ObjectHost reports whether EmitObj and EmitAsm can target the host
// triple (empty means DefaultTriple): nil for ELF x86-64 and AArch64
// hosts, else the ErrTarget they would return.
func ObjectHost(host string) error {
	if host == "" {
		host = DefaultTriple
	}
	t, err := parseTriple(host)
	if err != nil {
		return err
	}
	if err := t.nativeELF(); err != nil {
		return err
	}
	if t.machine == "" {
		return targetErr("'%s': assembly and objects are generated for x86_64 and aarch64 hosts only", t.str)
	}
	return nil
}

// targetError is an ErrTarget with LLVM's wording.
type targetError struct{ msg string }

func (e *targetError) Error() string { return "wrapper: " + e.msg }
func (e *targetError) Unwrap() error { return ErrTarget }

func targetErr(format string, a ...any) error { return &targetError{fmt.Sprintf(format, a...)} }
