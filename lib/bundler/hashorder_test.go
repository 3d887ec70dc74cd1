package bundler

import (
	"slices"
	"testing"
)

// The buckets of three IDs in a fresh 16-bucket StringMap, as a C++ probe
// linked against libLLVM-22 printed them: openmp 1, hip 2, host 12,
// whatever order they are inserted in; clang-offload-bundler-22 -list
// shows the same order (docs/provenance.md#list-order: the command).
// tests/bundler compares whole listings with LLVM's.
func TestStringMapOrderProbe(t *testing.T) {
	const (
		host   = "host-x86_64-unknown-linux-gnu-"
		hip    = "hip-amdgcn-amd-amdhsa--gfx906"
		openmp = "openmp-nvptx64-nvidia-cuda-sm_70-"
	)
	for _, keys := range [][]string{{host, hip, openmp}, {openmp, host, hip}, {hip, openmp, host}} {
		var got []string
		for _, i := range stringMapOrder(keys) {
			got = append(got, keys[i])
		}
		if want := []string{openmp, hip, host}; !slices.Equal(got, want) {
			t.Errorf("inserted %q: iterated %q, want %q", keys, got, want)
		}
	}
}

// A repeated key keeps its first place and is listed once.
func TestStringMapOrderRepeat(t *testing.T) {
	got := stringMapOrder([]string{"a", "b", "a"})
	if len(got) != 2 || slices.Contains(got, 2) {
		t.Errorf("stringMapOrder(a, b, a) = %v", got)
	}
}
