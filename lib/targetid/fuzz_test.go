package targetid

import (
	"strings"
	"testing"
)

// FuzzParseEntryID checks that parsing never panics and that standardizing
// is stable: String() re-parses to the same String(). The one exception is
// LLVM's own: the amdhsa rule looks at the raw OS field, so an ID whose
// "amdhsa" only reaches the OS position through normalisation is written
// with an env ("hip-amdgcn-amdhsa-amd--gfx906" → "...-amd-amdhsa-unknown-
// gfx906", observed with clang-offload-bundler-22) and loses it on the next
// round. That second round must then be stable.
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
		if err != nil {
			if err != ErrEntryIDFormat || strings.Count(s, "-") >= 4 {
				t.Fatalf("ParseEntryID(%q): unexpected error %v", s, err)
			}
			return
		}
		_ = e.ValidateError()
		s1 := e.String()
		e2, err := ParseEntryID(s1)
		if err != nil {
			t.Fatalf("String() %q of %q does not re-parse: %v", s1, s, err)
		}
		s2 := e2.String()
		if s1 != s2 && !(parseOS(e.OS) == "amdhsa" && e.triple.os != "amdhsa") {
			t.Fatalf("%q: String() %q re-parses to %q", s, s1, s2)
		}
		if e3, _ := ParseEntryID(s2); e3.String() != s2 {
			t.Fatalf("%q: not stable after two rounds: %q → %q", s, s2, e3.String())
		}
		if !Compatible(e2, e, false) {
			// A standardized entry always satisfies a request for itself.
			t.Fatalf("%q not compatible with its own standard form %q", s, s1)
		}
	})
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
