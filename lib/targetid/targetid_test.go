package targetid

import (
	"errors"
	"slices"
	"testing"
)

// Standardized forms of entry IDs, each observed with clang-offload-bundler
// 22.1.8's -list output (docs/provenance.md#entry-ids: the command).
var standardizeTests = []struct{ in, want string }{
	// Reference table, every row.
	{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-linux-gnu-unknown", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-apple-macosx15.0.0-", "host-x86_64-apple-macosx15.0.0-unknown-"},
	{"host-x86_64-unknown-linux-gnu-gfx906", "host-x86_64-unknown-linux-gnu-gfx906"},
	{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn-amd-amdhsa-unknown-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn-amd-amdhsa-gnu-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"},
	{"hip-amdgcn--amdhsa--gfx906", "hip-amdgcn-unknown-amdhsa--gfx906"},
	{"hip-amdgcn-amd---gfx906", "hip-amdgcn-amd-unknown-unknown-gfx906"},
	{"hip-spirv64-amd-amdhsa-unknown-amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv"},
	{"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70"},
	{"openmp-nvptx64-nvidia-cuda-sm_70", "openmp-nvptx64-nvidia-cuda-sm_70-"},
	{"hip-amdgcn-amd-amdhsa--tahiti", "hip-amdgcn-amd-amdhsa--"},
	// Observed with clang-offload-bundler-22 -list while writing this package.
	{"hip-amdgcn-amdhsa-amd--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"},
	{"hip-amdgcn-gnu-amdhsa-amd-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn--amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"},
	{"host-x86_64-gnu-linux-", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-pc-win32-", "host-x86_64-pc-windows-msvc-"},
	{"host-x86_64-pc-mingw32-", "host-x86_64-pc-windows-gnu-"},
	{"host-x86_64-pc-win32-elf", "host-x86_64-pc-windows-elf-"},
	{"host-x86_64-pc-win32-coff", "host-x86_64-pc-windows-msvc-"},
	{"host-x86_64-pc-windows-macho", "host-x86_64-pc-windows-macho-"},
	{"host-x86_64-cygwin--", "host-x86_64-unknown-windows-cygnus-"},
	{"host-x86_64-elf--", "host-x86_64-unknown-unknown-elf-"},
	{"host-armv7-suse-linux-gnueabi", "host-armv7-suse-linux-gnueabihf-"},
	{"host-armv7-none--eabi", "host-armv7-unknown-none-eabi-"},
	{"host-x86_64-none--", "host-x86_64-none-unknown-unknown-"},
	{"host-x86_64-linux-android-androideabi21", "host-x86_64-unknown-linux-android21-"},
	{"host-x86_64-androideabi--", "host-x86_64-unknown-unknown-android-"},
	{"host-dxil-unknown-shadermodel6.3-compute", "host-dxilv1.3-unknown-shadermodel6.3-compute-"},
	{"host-dxil-unknown-shadermodel6.x-compute", "host-dxilv1.9-unknown-shadermodel6.x-compute-"},
	{"host-dxil-unknown-shadermodel-compute", "host-dxilv1.0-unknown-shadermodel-compute-"},
	{"hip-x86_64-meta-unknown-unknown", "hip-x86_64-meta-unknown-unknown-"},
	{"hip-x86_64-unknown-unknown-meta", "hip-x86_64-meta-unknown-unknown-"},
	{"hip-x86_64-unknown-unknown-nacl", "hip-x86_64-unknown-unknown-nacl-"},
	{"hip-x86_64-managarm-unknown-unknown", "hip-x86_64-unknown-managarm-unknown-"},
	{"hip-x86_64-mlibc-unknown-unknown", "hip-x86_64-unknown-unknown-mlibc-"},
	{"hip-x86_64-unknown-l92--sm_100f", "hip-x86_64-unknown-l92-unknown-"},
	{"hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+", "hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+"},
	{"hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-", "hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-"},
}

func TestStandardize(t *testing.T) {
	for _, tc := range standardizeTests {
		e, err := ParseEntryID(tc.in)
		if err != nil {
			t.Errorf("ParseEntryID(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("ParseEntryID(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseEntryIDFormat(t *testing.T) {
	for _, s := range []string{"", "host", "hip-amdgcn-amd-amdhsa", "a-b-c-d"} {
		if _, err := ParseEntryID(s); err != ErrEntryIDFormat {
			t.Errorf("ParseEntryID(%q) error = %v, want ErrEntryIDFormat", s, err)
		}
	}
	e, err := ParseEntryID("hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-")
	if err != nil || e.TargetID != "gfx9-4-generic:xnack-" || e.RawTargetID != e.TargetID {
		t.Errorf("sixth field must keep its dashes: %+v, %v", e, err)
	}
	e, _ = ParseEntryID("hip-amdgcn-amd-amdhsa--tahiti:xnack+")
	if e.TargetID != "" || e.RawTargetID != "tahiti:xnack+" {
		t.Errorf("unknown OffloadArch must be dropped but kept raw: %+v", e)
	}
}

// Messages observed from clang-offload-bundler-22 (stderr, minus its prefix).
func TestValidateError(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hip-amdgcn-amd-amdhsa--gfx906", ""},
		{"host-x86_64-unknown-linux-gnu", ""},
		{"foo-bar-amd-amdhsa--gfx906", "invalid target 'foo-bar-amd-amdhsa--gfx906', unknown offloading kind 'foo', unknown target triple 'bar-amd-amdhsa-'"},
		{"hip-AMDGCN-amd-amdhsa--gfx906", "invalid target 'hip-AMDGCN-amd-amdhsa--gfx906', unknown target triple 'AMDGCN-amd-amdhsa-'"},
		{"cuda-nvptx64-nvidia-cuda--sm_70", "invalid target 'cuda-nvptx64-nvidia-cuda--sm_70', unknown offloading kind 'cuda'"},
	}
	for _, tc := range tests {
		e, err := ParseEntryID(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		verr := e.ValidateError()
		got := ""
		if verr != nil {
			got = verr.Error()
			var ite *InvalidTargetError
			if !errors.As(verr, &ite) {
				t.Errorf("%q: error is %T, want *InvalidTargetError", tc.in, verr)
			}
		}
		if got != tc.want {
			t.Errorf("%q: ValidateError() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Arch validity observed with clang-offload-bundler-22 (bundle accepted or
// "unknown target triple").
func TestTripleValid(t *testing.T) {
	valid := []string{"x86_64", "x86_64h", "amd64", "i386", "i686", "i986", "arm64", "arm64e",
		"arm64ec", "arm64_32", "aarch64", "aarch64_be", "aarch64_32", "armv7", "armv7a", "armv7l",
		"armv7hl", "thumbv7em", "thumbv6m", "armv99", "armx", "arm", "armeb", "armebv7", "armv7eb",
		"thumbebv7", "ppc", "ppc32", "ppc64", "ppc64le", "ppcle", "ppc32le", "powerpc", "powerpc64",
		"powerpc64le", "powerpcle", "powerpcspe", "ppu", "riscv32", "riscv64", "riscv32be",
		"riscv64be", "spirv", "spirv32", "spirv64", "spirv1.5", "spirv1.6", "spirv64v1.5",
		"spirv32v1.0", "spirv64v1.6", "sparc", "sparc64", "sparcv9", "sparcel", "loongarch32",
		"loongarch64", "xtensa", "bpf", "bpfel", "bpfeb", "bpf_be", "bpf_le", "kalimba", "kalimba3",
		"systemz", "s390x", "mips", "mipsel", "mips64", "mips64el", "mips64r6", "mipsisa64r6el",
		"mipsallegrex", "mipsn32", "hexagon", "ve", "csky", "dxil", "dxilv1.8", "dxilv1.9", "r600",
		"amdgcn", "nvptx", "nvptx64", "spir", "spir64", "wasm32", "wasm64", "amdil", "amdil64",
		"hsail", "hsail64", "renderscript32", "renderscript64", "lanai", "shave", "m68k", "msp430",
		"avr", "arc", "tce", "tcele", "xcore", "xscale", "xscaleeb"}
	invalid := []string{"x86", "thumbv2", "aarch64eb", "spirv1.4", "pe", "bpfx", "e2k", "AMDGCN",
		"gfx906", "unknown", ""}
	for _, a := range valid {
		if e, _ := ParseEntryID("hip-" + a + "-unknown-linux-gnu"); !e.TripleValid() {
			t.Errorf("%q should be a known arch", a)
		}
	}
	for _, a := range invalid {
		if e, _ := ParseEntryID("hip-" + a + "-unknown-linux-gnu"); e.TripleValid() {
			t.Errorf("%q should be an unknown arch", a)
		}
	}
}

// Conflicts observed with clang-offload-bundler-22 (bundling the IDs as
// hip-amdgcn-amd-amdhsa--<id>).
func TestConflict(t *testing.T) {
	tests := []struct {
		ids  []string
		a, b string
	}{
		{[]string{"gfx906", "gfx906:xnack+"}, "gfx906", "gfx906:xnack+"},
		{[]string{"gfx906:xnack+", "gfx906"}, "gfx906", "gfx906:xnack+"},
		{[]string{"gfx906:xnack-", "gfx906:xnack+"}, "", ""},
		{[]string{"gfx906:sramecc-", "gfx906:xnack+"}, "gfx906:sramecc-", "gfx906:xnack+"},
		{[]string{"gfx906:xnack", "gfx906:xnack+"}, "", ""},
		{[]string{"gfx906:xnack+:xnack-", "gfx906:xnack+"}, "", ""},
		{[]string{"gfx906", "gfx906:"}, "", ""},
		{[]string{"", "gfx906:a+:q"}, "", "gfx906:a+:q"},
		{[]string{"gfx906:xnack+", "gfx906:zz+:q"}, "gfx906:xnack+", "gfx906:zz+:q"},
		// A malformed first ID is undefined in LLVM; these match what 22.1.8
		// did in isolation and what Conflict chooses.
		{[]string{"gfx906:q", "gfx906:xnack+"}, "", ""},
		{[]string{"gfx906:a+:q", "gfx906:b+"}, "", ""},
		{[]string{"gfx906:a+:q", "gfx906:b+:q"}, "gfx906:a+:q", "gfx906:b+:q"},
		{[]string{"gfx906:a+:q", "gfx906:a+:r"}, "", ""},
		{[]string{"gfx906:a+:q", "gfx908:b+:q"}, "gfx906:a+:q", "gfx908:b+:q"},
		{[]string{"gfx906:+", "gfx906:a+"}, "gfx906:+", "gfx906:a+"},
		{[]string{"gfx906:xnack+", "gfx908:sramecc+", "gfx908:zz+:q"}, "gfx908:sramecc+", "gfx908:zz+:q"},
	}
	for _, tc := range tests {
		a, b, ok := Conflict(tc.ids)
		wantOK := tc.b != ""
		if ok != wantOK || a != tc.a || b != tc.b {
			t.Errorf("Conflict(%q) = %q, %q, %v; want %q, %q, %v", tc.ids, a, b, ok, tc.a, tc.b, wantOK)
		}
	}
}

func TestBundleConflict(t *testing.T) {
	var ids []EntryID
	for _, s := range []string{
		"host-x86_64-unknown-linux-gnu",
		"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+", // other raw triple: own group
		"hip-amdgcn-amd-amdhsa--gfx906",
		"hip-amdgcn-amd-amdhsa--gfx906:sramecc+",
	} {
		e, err := ParseEntryID(s)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e)
	}
	a, b, ok := BundleConflict(ids)
	if !ok || a != "hip-amdgcn-amd-amdhsa--gfx906" || b != "hip-amdgcn-amd-amdhsa--gfx906:sramecc+" {
		t.Errorf("BundleConflict = %q, %q, %v", a, b, ok)
	}
	if _, _, ok := BundleConflict(ids[:3]); ok {
		t.Error("IDs in different raw-triple groups must not conflict")
	}
}

func mustEntry(t *testing.T, s string) EntryID {
	t.Helper()
	e, err := ParseEntryID(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Cases from isCodeObjectCompatible (docs/provenance.md#compatibility), observed
// unbundling with clang-offload-bundler-22.
func TestCompatible(t *testing.T) {
	const h = "hip-amdgcn-amd-amdhsa--"
	tests := []struct {
		co, req   string
		hipOpenMP bool
		want      bool
	}{
		{h + "gfx906:xnack+", h + "gfx906", false, false},
		{h + "gfx906:xnack+", h + "gfx906:xnack-", false, false},
		{h + "gfx906:xnack+", h + "gfx906:xnack+", false, true},
		{h + "gfx906:xnack+", h + "gfx906:sramecc+:xnack+", false, true},
		{h + "gfx906", h + "gfx906:xnack+", false, true},
		{"hipv4-amdgcn-amd-amdhsa--gfx906", h + "gfx906", false, true},
		{"openmp-amdgcn-amd-amdhsa--gfx908", h + "gfx908", false, false},
		{"openmp-amdgcn-amd-amdhsa--gfx908", h + "gfx908", true, true},
		{"host-x86_64-pc-linux-gnu-", "host-x86_64-unknown-linux-gnu", false, false},
		{"hip-amdgcn-amd-amdhsa-gfx906", h + "gfx906", false, false},
		{h, "hipv4-amdgcn-amd-amdhsa--", false, false},
		{h, h + "gfx906", false, false},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "openmp-nvptx64-nvidia-cuda--sm_70", false, true},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "openmp-nvptx64-foo-cuda-unknown-sm_70", false, false},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "openmp-nvptx64-nvidia-cuda5-unknown-sm_70", false, true},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "hip-nvptx64-nvidia-cuda--sm_70", false, false},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "hip-nvptx64-nvidia-cuda--sm_70", true, true},
		{"openmp-nvptx64-nvidia-cuda-unknown-sm_70", "openmp-nvptx64-nvidia-cuda--sm_70:xnack+", false, false},
		{"host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu-gfx906", false, false},
	}
	for _, tc := range tests {
		got := Compatible(mustEntry(t, tc.co), mustEntry(t, tc.req), tc.hipOpenMP)
		if got != tc.want {
			t.Errorf("Compatible(%q, %q, %v) = %v, want %v", tc.co, tc.req, tc.hipOpenMP, got, tc.want)
		}
	}
}

// Canonical forms as printed by clang-22 -x hip --offload-arch=<id> -###.
func TestParseTargetID(t *testing.T) {
	tests := []struct {
		triple, id, want string
		err              error
	}{
		{"amdgcn-amd-amdhsa", "tahiti", "gfx600", nil},
		{"amdgcn-amd-amdhsa", "gfx906:xnack+:sramecc-", "gfx906:sramecc-:xnack+", nil},
		{"amdgcn", "gfx9-4-generic:sramecc+", "gfx9-4-generic:sramecc+", nil},
		{"amdgcn", "gfx906:", "gfx906", nil},
		{"amdgcn", "stoney:xnack-", "gfx810:xnack-", nil},
		{"amdgcn", "gfx1030:xnack+", "", ErrUnsupportedFeature},
		{"amdgcn", "gfx1250:xnack+", "", ErrUnsupportedFeature},
		{"amdgcn", "gfx906:xnack", "", ErrTargetIDFormat},
		{"amdgcn", "gfx906::xnack+", "", ErrTargetIDFormat},
		{"amdgcn", "gfx906:xnack+:xnack-", "", ErrDuplicateFeature},
		{"amdgcn", "gfx940", "", ErrUnknownProcessor},
		{"amdgcn", "generic", "", ErrUnknownProcessor},
		{"amdgcn", "GFX906", "", ErrUnknownProcessor},
		{"amdgcn", ":xnack+", "", ErrTargetIDFormat},
		{"amdgcn", "", "", ErrUnknownProcessor},
		{"r600", "rv740", "rv770", nil},
		{"r600", "gfx906", "", ErrUnknownProcessor},
		{"nvptx64-nvidia-cuda", "sm_70", "sm_70", nil},
		{"nvptx64", "anything", "anything", nil},
		{"nvptx64", "sm_70:xnack+", "", ErrUnsupportedFeature},
		{"spirv64-amd-amdhsa", "amdgcnspirv", "amdgcnspirv", nil},
	}
	for _, tc := range tests {
		got, err := ParseTargetID(tc.triple, tc.id)
		if !errors.Is(err, tc.err) || (err == nil && got.Canonical() != tc.want) {
			t.Errorf("ParseTargetID(%q, %q) = %q, %v; want %q, %v", tc.triple, tc.id, got.Canonical(), err, tc.want, tc.err)
		}
	}
}

func TestOffloadArchs(t *testing.T) {
	all := OffloadArchs()
	if len(all) != 91 || !slices.IsSorted(all) {
		t.Fatalf("OffloadArchs: %d names, sorted=%v", len(all), slices.IsSorted(all))
	}
	for _, n := range []string{"gfx906", "sm_90a", "gfx9-4-generic", "amdgcnspirv", "generic", "sm_88", "gfx1251"} {
		if !KnownOffloadArch(n) {
			t.Errorf("%q should be known", n)
		}
	}
	for _, n := range []string{"tahiti", "kaveri", "GFX906", "gfx9000", "gfx1310", "pvc", "gfx906-extra", "sm_100f", "gfx940", ""} {
		if KnownOffloadArch(n) {
			t.Errorf("%q should not be known", n)
		}
	}
}
