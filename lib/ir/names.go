package ir

import "strings"

// quoteName is a name as LLVM's assembly writes it after @ or %: bare when
// it is made of letters, digits and "-$._" and does not start with a digit,
// else quoted with the other bytes escaped.
func quoteName(name string) string {
	bare := name != "" && (name[0] < '0' || name[0] > '9')
	for i := 0; bare && i < len(name); i++ {
		c := name[i]
		bare = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-$._", c) >= 0
	}
	if bare {
		return name
	}
	return `"` + escape(name) + `"`
}

// escape writes bytes as LLVM prints string constants: printable ASCII
// other than '"' and '\' as is, everything else as \XX.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			b.WriteByte('\\')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
