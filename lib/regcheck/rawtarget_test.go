package regcheck

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"
)

// LLVM 20 and later register the image inside each OffloadBinary: the
// record of the OpenMP example's saxpy built by clang-21 -c opt for gfx90a,
// sm_70, sm_90 and x86_64 (testdata/openmp21_saxpy.record,
// docs/provenance.md) holds four raw ELF images. Their targets come from
// the images themselves: the cubins' SM, the code object's metadata note;
// the host one by its machine.
func TestRawImagesNameTheirTargets(t *testing.T) {
	b, err := os.ReadFile("testdata/openmp21_saxpy.record")
	if err != nil {
		t.Fatal(err)
	}
	rec := mustParse(t, b)
	if len(rec.Units) != 1 {
		t.Fatalf("%d units, want 1", len(rec.Units))
	}
	imgs, err := rec.Images(rec.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range imgs {
		got = append(got, im.Target+"|"+im.Format)
	}
	sort.Strings(got)
	want := "gfx90a|code object,sm_70|cubin,sm_90|cubin,|shared object"
	if strings.Join(got, ",") != want {
		t.Errorf("images %q, want %q", strings.Join(got, ","), want)
	}
	rep := check(t, b, Options{Targets: map[string][][]string{"openmp": {{"gfx90a", "sm_70", "sm_90", "x86_64-pc-linux-gnu"}}}})
	if !rep.OK() {
		t.Errorf("check failed: %s", rep.Summary)
	}
}

// A code object whose metadata note is cut inside the target string, or
// names no target, gives no target (and no panic).
func TestAMDGPUNoteTargetHostile(t *testing.T) {
	key := string(amdhsaTargetKey)
	for _, c := range []struct{ note, want string }{
		{key + "\xb9amdgcn-amd-amdhsa--gfx90a", "gfx90a"},
		{key + "\xd9\x20gfx942-amdgcn-amd-amdhsa--gfx942", "gfx942"},
		{key + "\xb9amdgcn-amd-amdhsa--gfx9", ""}, // length past the end
		{key + "\xa5gfx90", ""},                   // no "--"
		{key, ""},
		{"", ""},
	} {
		if got := noteTarget([]byte(c.note)); got != c.want {
			t.Errorf("note %q: target %q, want %q", c.note, got, c.want)
		}
	}
	if got := noteTarget(bytes.Repeat([]byte(key), 1000)); got != "" {
		t.Errorf("repeated key: %q", got)
	}
}
