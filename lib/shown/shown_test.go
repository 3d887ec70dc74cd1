package shown

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
		"a b/ü.o":                                "a b/ü.o",
		"":                                       "",
		"\x1b[2J\x1b[31mred":                     `"\x1b[2J\x1b[31mred"`,
		"x\nforged: bundle":                      `"x\nforged: bundle"`,
		"tab\there":                              `"tab\there"`,
		"bad\xffutf8":                            `"bad\xffutf8"`,
		"\u202egnp.exe":                          `"\u202egnp.exe"`,
		`"looks quoted"`:                         `"\"looks quoted\""`,
		"\uFFFD written as such":                 "\uFFFD written as such",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}

// A long name is cut at MaxBrief bytes, back to a rune's start, quoted,
// with its length after; shorter ones are shown as Name shows them.
func TestBrief(t *testing.T) {
	long := strings.Repeat("A", MaxBrief-1) + "ü" + strings.Repeat("B", 10)
	for in, want := range map[string]string{
		"x\nforged":                     `"x\nforged"`,
		strings.Repeat("A", MaxBrief):   strings.Repeat("A", MaxBrief),
		strings.Repeat("A", MaxBrief+1): `"` + strings.Repeat("A", MaxBrief) + `"... (4097 bytes)`,
		long:                            `"` + strings.Repeat("A", MaxBrief-1) + `"... (4107 bytes)`,
	} {
		if got := Brief(in); got != want {
			t.Errorf("Brief(%d bytes) = %.40q... (%d bytes), want %.40q... (%d bytes)", len(in), got, len(got), want, len(want))
		}
	}
}
