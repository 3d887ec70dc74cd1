// Package shown makes names taken from inputs safe to print for a person:
// a name of printable characters is shown as it is; any other (terminal
// escape sequences, newlines that would forge lines of output, invalid
// UTF-8) is shown Go-quoted, with those bytes escaped (%q style), so that
// what is printed is one line that says exactly which bytes the name has.
// JSON output needs none of this: encoding/json escapes by construction.
package shown

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Name returns s as it should be printed in human output.
func Name(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain reports whether s is valid UTF-8 of printable characters only, and
// does not start with a quote (which would make it look quoted).
func plain(s string) bool {
	if len(s) > 0 && s[0] == '"' {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError && !validAt(s, i) || !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

// validAt reports whether the U+FFFD at s[i:] was written as such, not an
// invalid byte.
func validAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 3
}

// MaxBrief is the most bytes of a name that Brief shows.
const MaxBrief = 4096

// Brief is Name for listings of one line per member, section or entry: a
// name longer than MaxBrief bytes is cut there, shown quoted (so the cut
// cannot be mistaken for the name's end) and followed by its length. Any
// number of members may name one long string; a listing then stays
// proportional to what it lists, not to the names' lengths.
func Brief(s string) string {
	if len(s) <= MaxBrief {
		return Name(s)
	}
	return strconv.Quote(Cut(s)) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut is s's first MaxBrief bytes, or fewer so as not to split a UTF-8
// sequence; s itself when it is no longer.
func Cut(s string) string {
	if len(s) <= MaxBrief {
		return s
	}
	cut := MaxBrief
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
