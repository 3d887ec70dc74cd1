package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// The registration form the OpenMP kind asks `offload wrap` for, per LLVM
// of the clang that built the objects: LLVM 15-19's linker wrapper
// registers each OffloadBinary whole and their libomptarget unwraps it
// (docs/compatibility.md; run on 15 and 16 in tests/openmp), LLVM 14 and
// earlier register the raw image, LLVM 20 and later write their own entry
// layout (no flag).
func TestOpenMPWrapFlagsPerLLVM(t *testing.T) {
	g, err := bzl.load("rules/private/kinds/openmp.bzl")
	if err != nil {
		t.Fatal(err)
	}
	link, err := g["OPENMP"].(*starlarkstruct.Struct).Attr("link")
	if err != nil {
		t.Fatal(err)
	}
	fn, err := link.(*starlarkstruct.Struct).Attr("wrap_flags")
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string]string{
		"14.0.6": `[]`,
		"15.0.6": `["--offload-binaries"]`,
		"16.0.6": `["--offload-binaries"]`,
		"17.0.6": `["--offload-binaries"]`,
		"19.1.7": `["--offload-binaries"]`,
		"20.1.8": `["--split-packages"]`,
		"21.1.8": `["--split-packages"]`,
		"22.1.0": `["--split-packages"]`,
	} {
		if got := call(t, fn.(starlark.Callable), version).String(); got != want {
			t.Errorf("LLVM %s: wrap_flags %s; want %s", version, got, want)
		}
	}
}
