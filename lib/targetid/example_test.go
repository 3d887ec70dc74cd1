package targetid_test

import (
	"fmt"

	"github.com/rules-offload/rules_offload/lib/targetid"
)

func ExampleParseEntryID() {
	for _, s := range []string{
		"host-x86_64-linux-gnu-unknown",
		"hip-amdgcn-amd-amdhsa-gnu-gfx906",
		"openmp-nvptx64-nvidia-cuda--sm_70",
		"hip-amdgcn-amd-amdhsa--tahiti", // not an OffloadArch name: dropped
	} {
		e, _ := targetid.ParseEntryID(s)
		fmt.Println(e.String())
	}
	// Output:
	// host-x86_64-unknown-linux-gnu-
	// hip-amdgcn-amd-amdhsa--gfx906
	// openmp-nvptx64-nvidia-cuda-unknown-sm_70
	// hip-amdgcn-amd-amdhsa--
}

func ExampleCompatible() {
	co, _ := targetid.ParseEntryID("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+")
	for _, req := range []string{
		"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx90a",
	} {
		r, _ := targetid.ParseEntryID(req)
		fmt.Println(req, targetid.Compatible(co, r, false))
	}
	// Output:
	// hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+ true
	// hip-amdgcn-amd-amdhsa--gfx90a false
}

func ExampleParseTargetID() {
	t, err := targetid.ParseTargetID("amdgcn-amd-amdhsa", "carrizo:xnack-")
	fmt.Println(t.Canonical(), err)
	_, err = targetid.ParseTargetID("amdgcn-amd-amdhsa", "gfx1030:xnack+")
	fmt.Println(err)
	// Output:
	// gfx801:xnack- <nil>
	// targetid: feature not supported by processor: "xnack" in "gfx1030:xnack+"
}
