package offloadkind

import "testing"

// The values are LLVM's OFK_* numbers: the OffloadBinary format and the
// offload entries store them as they are.
func TestValuesAreLLVMs(t *testing.T) {
	for k, want := range map[Kind]uint16{None: 0, OpenMP: 1, CUDA: 2, HIP: 4, SYCL: 8} {
		if uint16(k) != want {
			t.Errorf("%v = %d, LLVM's OFK_ value is %d", k, uint16(k), want)
		}
	}
}

// Parse and String are LLVM's getOffloadKind and getOffloadKindName: exact
// spellings, and "none" for anything that is not one kind.
func TestParseString(t *testing.T) {
	for s, want := range map[string]Kind{"openmp": OpenMP, "cuda": CUDA, "hip": HIP, "sycl": SYCL, "none": None, "HIP": None, "hipv4": None, "": None} {
		if got := Parse(s); got != want {
			t.Errorf("Parse(%q) = %d, want %d", s, got, want)
		}
	}
	for k, want := range map[Kind]string{None: "none", OpenMP: "openmp", CUDA: "cuda", HIP: "hip", SYCL: "sycl", OpenMP | HIP: "none", 1 << 4: "none"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint16(k), got, want)
		}
	}
}

// The bundler's entry kinds: hip and hipv4 are both HIP; host is no kind.
func TestFromBundle(t *testing.T) {
	for s, want := range map[string]Kind{"openmp": OpenMP, "hip": HIP, "hipv4": HIP} {
		if got, ok := FromBundle(s); !ok || got != want {
			t.Errorf("FromBundle(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"host", "cuda", "sycl", "HIP", ""} {
		if _, ok := FromBundle(s); ok {
			t.Errorf("FromBundle(%q) is a kind", s)
		}
	}
}
