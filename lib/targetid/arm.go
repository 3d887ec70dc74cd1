package targetid

import "strings"

// ARM architecture names as llvm::Triple parses them
// (llvm/lib/TargetParser/ARMTargetParserCommon.cpp, ARMTargetParser.def).
// Only what Triple needs: the ArchType of "arm*"/"thumb*"/"aarch64*" names
// and their SubArch identity for isCompatibleWith.

// armArchNames is ARMTargetParser.def's ARM_ARCH list, in order: ARM::parseArch
// returns the first name that ends with the synonym.
var armArchNames = []string{
	"invalid", "armv4", "armv4t", "armv5t", "armv5te", "armv5tej", "armv6", "armv6k",
	"armv6t2", "armv6kz", "armv6-m", "armv7-a", "armv7ve", "armv7-r", "armv7-m", "armv7e-m",
	"armv8-a", "armv8.1-a", "armv8.2-a", "armv8.3-a", "armv8.4-a", "armv8.5-a", "armv8.6-a",
	"armv8.7-a", "armv8.8-a", "armv8.9-a", "armv9-a", "armv9.1-a", "armv9.2-a", "armv9.3-a",
	"armv9.4-a", "armv9.5-a", "armv9.6-a", "armv9.7-a", "armv8-r", "armv8-m.base",
	"armv8-m.main", "armv8.1-m.main", "iwmmxt", "iwmmxt2", "xscale", "armv7s", "armv7k",
}

var armSynonyms = map[string]string{
	"v5": "v5t", "v5e": "v5te", "v6j": "v6", "v6hl": "v6k",
	"v6m": "v6-m", "v6sm": "v6-m", "v6s-m": "v6-m", "v6z": "v6kz", "v6zk": "v6kz",
	"v7": "v7-a", "v7a": "v7-a", "v7hl": "v7-a", "v7l": "v7-a",
	"v7r": "v7-r", "v7m": "v7-m", "v7em": "v7e-m",
	"v8": "v8-a", "v8a": "v8-a", "v8l": "v8-a", "aarch64": "v8-a", "arm64": "v8-a",
	"v8.1a": "v8.1-a", "v8.2a": "v8.2-a", "v8.3a": "v8.3-a", "v8.4a": "v8.4-a",
	"v8.5a": "v8.5-a", "v8.6a": "v8.6-a", "v8.7a": "v8.7-a", "v8.8a": "v8.8-a",
	"v8.9a": "v8.9-a", "v8r": "v8-r", "v9": "v9-a", "v9a": "v9-a", "v9.1a": "v9.1-a",
	"v9.2a": "v9.2-a", "v9.3a": "v9.3-a", "v9.4a": "v9.4-a", "v9.5a": "v9.5-a",
	"v9.6a": "v9.6-a", "v9.7a": "v9.7-a", "v8m.base": "v8-m.base", "v8m.main": "v8-m.main",
	"v8.1m.main": "v8.1-m.main",
}

// armCanonicalArchName is ARM::getCanonicalArchName: the part after the
// "arm"/"thumb"/"aarch64" prefix and endianness marker, "" when invalid.
func armCanonicalArchName(arch string) string {
	a, off := arch, -1
	switch {
	case strings.HasPrefix(a, "arm64_32"):
		off = 8
	case strings.HasPrefix(a, "arm64e"):
		off = 6
	case strings.HasPrefix(a, "arm64"):
		off = 5
	case strings.HasPrefix(a, "aarch64_32"):
		off = 10
	case strings.HasPrefix(a, "arm"):
		off = 3
	case strings.HasPrefix(a, "thumb"):
		off = 5
	case strings.HasPrefix(a, "aarch64"):
		off = 7
		if strings.Contains(a, "eb") {
			return ""
		}
		if substr(a, off, 3) == "_be" {
			off += 3
		}
	}
	if off >= 0 && substr(a, off, 2) == "eb" {
		off += 2
	} else {
		a = strings.TrimSuffix(a, "eb")
	}
	if off >= 0 {
		a = substr(a, off, len(a))
	}
	if a == "" {
		return arch
	}
	if off >= 0 {
		if len(a) >= 2 && (a[0] != 'v' || a[1] < '0' || a[1] > '9') {
			return ""
		}
		if strings.Contains(a, "eb") {
			return ""
		}
	}
	return a
}

// substr is StringRef::substr: both bounds clamp to the string.
func substr(s string, start, n int) string {
	if start > len(s) {
		return ""
	}
	s = s[start:]
	if n < len(s) {
		s = s[:n]
	}
	return s
}

// armKind is ARM::parseArch: the ARM_ARCH name for arch, "invalid" if none.
func armKind(arch string) string {
	syn := armCanonicalArchName(arch)
	if s, ok := armSynonyms[syn]; ok {
		syn = s
	}
	for _, name := range armArchNames {
		if strings.HasSuffix(name, syn) {
			return name
		}
	}
	return "invalid"
}

// parseARMArch is Triple.cpp's parseARMArch.
func parseARMArch(name string) string {
	var isa string
	switch {
	case strings.HasPrefix(name, "aarch64"), strings.HasPrefix(name, "arm64"):
		isa = "aarch64"
	case strings.HasPrefix(name, "thumb"):
		isa = "thumb"
	case strings.HasPrefix(name, "arm"):
		isa = "arm"
	}
	big, known := armEndian(name)
	arch := ""
	if known && isa != "" {
		arch = isa
		if big {
			arch = map[string]string{"arm": "armeb", "thumb": "thumbeb", "aarch64": "aarch64_be"}[isa]
		}
	}
	canon := armCanonicalArchName(name)
	if canon == "" {
		return ""
	}
	if isa == "thumb" && (strings.HasPrefix(canon, "v2") || strings.HasPrefix(canon, "v3")) {
		return ""
	}
	// Only ARMv6-M has profile M and major version 6: it is Thumb-only.
	if armKind(canon) == "armv6-m" {
		if big {
			return "thumbeb"
		}
		return "thumb"
	}
	return arch
}

// armEndian is ARM::parseArchEndian: (big, known).
func armEndian(name string) (bool, bool) {
	switch {
	case strings.HasPrefix(name, "armeb"), strings.HasPrefix(name, "thumbeb"), strings.HasPrefix(name, "aarch64_be"):
		return true, true
	case strings.HasPrefix(name, "arm"), strings.HasPrefix(name, "thumb"):
		return strings.HasSuffix(name, "eb"), true
	case strings.HasPrefix(name, "aarch64"):
		return false, true
	}
	return false, false
}

// armSubArch maps an ARM kind to Triple's SubArchType identity, merging the
// kinds LLVM merges ("" is NoSubArch).
func armSubArch(canon string) string {
	switch k := armKind(canon); k {
	case "invalid", "armv4":
		return ""
	case "armv5te", "armv5tej", "iwmmxt", "iwmmxt2", "xscale":
		return "armv5te"
	case "armv6k", "armv6kz":
		return "armv6k"
	case "armv7-a", "armv7-r":
		return "armv7"
	default:
		return k
	}
}
