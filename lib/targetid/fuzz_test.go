package targetid

import (
	"strings"
	"testing"
)

// FuzzParseEntryID checks that parsing never panics and that standardizing
// settles: String() re-parses to the same String(), except where LLVM's own
// standardization moves on (llvmRestandardizes), and within three rounds.
func FuzzParseEntryID(f *testing.F) {
	for _, tc := range standardizeTests {
		f.Add(tc.in)
	}
	for _, s := range []string{"", "-----", "a-b-c-d", "x-amdgcn-none--eabi-gfx906::", "host-dxil-x-shadermodel6.99-",
		"k-armv6m-cygwin-win32-elf-sm_70:xnack+", "h-thumbebv7-mingw32---", "hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEntryID(s)
		// The archive-target reading fails exactly where the plain one does.
		if a, aerr := ParseArchiveTarget(s); (aerr == nil) != (err == nil) || (aerr == nil && a.Raw != s) {
			t.Fatalf("ParseArchiveTarget(%q) = %q, %v; ParseEntryID: %v", s, a.String(), aerr, err)
		}
		if err != nil {
			if err != ErrEntryIDFormat || strings.Count(s, "-") >= 4 {
				t.Fatalf("ParseEntryID(%q): unexpected error %v", s, err)
			}
			return
		}
		_ = e.ValidateError()
		cur, str := e, e.String()
		for round := 1; ; round++ {
			next, err := ParseEntryID(str)
			if err != nil {
				t.Fatalf("%q: String() %q does not re-parse: %v", s, str, err)
			}
			if next.String() == str {
				break
			}
			if !llvmRestandardizes(cur) {
				t.Fatalf("%q: String() %q re-parses to %q", s, str, next.String())
			}
			if round == 3 {
				t.Fatalf("%q: not stable after three rounds: %q → %q", s, str, next.String())
			}
			cur, str = next, next.String()
		}
		if e2, _ := ParseEntryID(e.String()); !Compatible(e2, e, false) {
			// A standardized entry always satisfies a request for itself.
			t.Fatalf("%q not compatible with its own standard form %q", s, e.String())
		}
	})
}

// llvmRestandardizes reports whether LLVM 22's bundler, given the standard
// form of e, stores another one (TestLLVMOracleEntryIDRounds checks such
// chains against it). Two rules cause that:
//   - the amdhsa rule looks at the raw OS field, so an ID whose "amdhsa" only
//     reaches the OS position through normalization is written with an env
//     ("hip-amdgcn-amdhsa-amd--gfx906" → "hip-amdgcn-amd-amdhsa-unknown-gfx906")
//     and loses it on the next round;
//   - Triple::normalize leaves a word in a slot it does not parse in when
//     its own slot is taken, and moves it once that slot is empty:
//     "hip-amdgcn-gnu-amdhsa-gnu" → "hip-amdgcn-gnu-amdhsa--" →
//     "hip-amdgcn-unknown-amdhsa--".
func llvmRestandardizes(e EntryID) bool {
	stray := func(c, parsed string) bool { return c != "unknown" && parsed == "" }
	return parseOS(e.OS) == "amdhsa" && e.triple.os != "amdhsa" ||
		stray(e.Arch, parseArch(e.Arch)) || stray(e.Vendor, parseVendor(e.Vendor)) || stray(e.OS, parseOS(e.OS))
}

// FuzzParseTargetID checks that target-ID parsing never panics and that a
// canonical target ID parses back to itself.
func FuzzParseTargetID(f *testing.F) {
	for _, s := range []string{"gfx906", "tahiti:xnack+", "gfx90a:xnack-:sramecc+", "gfx906::", ":", "sm_70", "gfx906:xnack+:xnack-"} {
		f.Add("amdgcn-amd-amdhsa", s)
		f.Add("nvptx64", s)
	}
	f.Fuzz(func(t *testing.T, triple, id string) {
		tid, err := ParseTargetID(triple, id)
		_, _, _ = Conflict([]string{id, triple})
		if err != nil {
			return
		}
		c := tid.Canonical()
		again, err := ParseTargetID(triple, c)
		if err != nil || again.Canonical() != c {
			t.Fatalf("canonical %q of %q re-parses to %q, %v", c, id, again.Canonical(), err)
		}
	})
}
