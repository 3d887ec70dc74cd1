package shown

import "testing"

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
