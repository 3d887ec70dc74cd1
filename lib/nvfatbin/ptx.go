package nvfatbin

import (
	"bytes"
	"errors"
)

// fatbinary does not store PTX as given: it drops "//" comments and
// squeezes blanks, and stores the result with a NUL after it. The rules
// below were read off its output for probe inputs (see ptx_test.go):
//
//   - "//" outside a double-quoted string starts a comment, which runs to
//     the next \n or \r; the comment goes and that byte stays.
//   - A space or tab goes when the input byte before it is white space
//     (space, tab, newline, \v, \f, \r), kept or not: runs of blanks
//     shrink to their first byte, and blanks at the start of a line go,
//     except on the line after a comment, whose newline does not count.
//   - A double quote opens or closes a string unless a backslash comes
//     just before it (even outside a string, and even when that backslash
//     is itself escaped). Blanks inside strings shrink as elsewhere.
//   - /* */ comments, \r and every other byte, NUL included, are kept.
//
// CUDA 12.4's fatbinary differs in three ways (read off its output for
// probe inputs): it keeps the "//" that starts a comment (and drops the
// rest of it), the newline after a comment counts as any other (blanks
// after it go), and it drops the file's first line but its newline, as if
// the file began inside a comment. CUDA 11.8's and 13.0's do neither.
//
// One case differs on purpose: for a comment that ends the file without a
// newline, fatbinary reads past its buffer and stores whatever byte it
// finds (a \r or \n was seen); we store a newline.

// MinifyPTX returns what fatbinary stores for the PTX text src, its NUL
// terminator included.
func MinifyPTX(src []byte) []byte { return minifyPTX(src, false) }

// minifyPTX is MinifyPTX, or with cuda124 what CUDA 12.4's fatbinary
// stores: it keeps the "//" of each comment (its text goes), and it drops
// the first line, newline aside, as if the file began inside a comment.
func minifyPTX(src []byte, cuda124 bool) []byte {
	out := make([]byte, 0, len(src)+1)
	prev := byte('x') // anything but white space: a file's first blank stays
	inString := false
	i := 0
	if cuda124 {
		nl, end := byte('\n'), bytes.IndexAny(src, "\r\n")
		if end < 0 {
			end = len(src)
		} else {
			nl = src[end]
		}
		out = append(out, nl)
		prev, i = nl, end+1
	}
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case !inString && c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := bytes.IndexAny(src[i:], "\r\n")
			nl := byte('\n')
			if end < 0 {
				end = len(src) - i
			} else {
				nl = src[i+end]
			}
			i += end
			if cuda124 {
				out = append(out, '/', '/')
			}
			out = append(out, nl)
			prev = '/'
			if cuda124 { // the newline counts: blanks after it go
				prev = nl
			}
			continue
		case c == ' ' || c == '\t':
			if !isSpace(prev) {
				out = append(out, c)
			}
		case c == '"' && prev != '\\':
			inString = !inString
			out = append(out, c)
		default:
			out = append(out, c)
		}
		prev = c
	}
	return append(out, 0)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// ErrNoPTXVersion is returned for PTX without a ".version X.Y" that
// fatbinary can read.
var ErrNoPTXVersion = errors.New("could not find ptx version")

// PTXVersion reads the PTX ISA version as fatbinary does, for the code
// version of a PTX entry: the first ".version" before any NUL, then white
// space, then one digit, a dot and one digit (".version 7.10" reads as
// 7.1, as fatbinary reads it).
func PTXVersion(src []byte) (major, minor int, err error) {
	if nul := bytes.IndexByte(src, 0); nul >= 0 {
		src = src[:nul]
	}
	i := bytes.Index(src, []byte(".version"))
	if i < 0 {
		return 0, 0, ErrNoPTXVersion
	}
	rest := bytes.TrimLeft(src[i+len(".version"):], " \t\n\v\f\r")
	if len(rest) < 3 || !isDigit(rest[0]) || rest[1] != '.' || !isDigit(rest[2]) {
		return 0, 0, ErrNoPTXVersion
	}
	return int(rest[0] - '0'), int(rest[2] - '0'), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
