package targetid

import "testing"

// TestParseArchiveTarget: a processor after a three-dash triple is read as
// the processor, standardizing as the four-dash spelling does; anything
// else parses as ParseEntryID parses it.
func TestParseArchiveTarget(t *testing.T) {
	for three, four := range map[string]string{
		"openmp-amdgcn-amd-amdhsa-gfx906":         "openmp-amdgcn-amd-amdhsa--gfx906",
		"openmp-amdgcn-amd-amdhsa-gfx906:xnack+":  "openmp-amdgcn-amd-amdhsa--gfx906:xnack+",
		"hip-amdgcn-amd-amdhsa-gfx90a:sramecc-":   "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-",
		"openmp-nvptx64-nvidia-cuda-sm_70":        "openmp-nvptx64-nvidia-cuda--sm_70",
		"openmp-amdgcn-amd-amdhsa-gfx9-4-generic": "openmp-amdgcn-amd-amdhsa--gfx9-4-generic",
		"host-x86_64-unknown-linux-gnu":           "host-x86_64-unknown-linux-gnu",
		"openmp-amdgcn-amd-amdhsa--gfx908":        "openmp-amdgcn-amd-amdhsa--gfx908",
		"openmp-amdgcn-amd-amdhsa-gfx9999":        "openmp-amdgcn-amd-amdhsa-gfx9999",
	} {
		got, err := ParseArchiveTarget(three)
		want, err2 := ParseEntryID(four)
		if err != nil || err2 != nil || got.String() != want.String() || got.TargetID != want.TargetID || got.Raw != three {
			t.Errorf("%s: %q (target ID %q, raw %q, %v); want %q as %s (%v)", three, got.String(), got.TargetID, got.Raw, err, want.String(), four, err2)
		}
	}
	if _, err := ParseArchiveTarget("openmp-amdgcn"); err != ErrEntryIDFormat {
		t.Errorf("short ID: %v", err)
	}
}
