package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// 20,000 images with one name (the review's 589 KB bundle and 1.28 MB fat
// binary: 57 s and 71 s to name, O(n²)) are named in well under a second,
// each with the number the old first-free search gave it.
func TestManyImagesOfOneNameNamedFast(t *testing.T) {
	for _, im := range []*Image{
		{Where: []string{"in.bundle"}, BundleID: "e", ImageKind: offloadbin.ImageNone},
		{Where: []string{"in.fatbin"}, OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", TargetID: "sm_90", ImageKind: offloadbin.ImageCubin},
	} {
		ims := make([]*Image, 20000)
		for i := range ims {
			ims[i] = im
		}
		start := time.Now()
		names := Names("", ims)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: 20,000 images named in %v; want < 1 s", im.Where[0], d)
		}
		stem, ext, _ := strings.Cut(names[0], ".")
		for i, n := range names[1:] {
			if want := fmt.Sprintf("%s.%d.%s", stem, i+1, ext); n != want {
				t.Fatalf("%s: image %d named %s, want %s", im.Where[0], i+1, n, want)
			}
		}
	}
}

// A number the search would reach is skipped when an image took it as its
// own name, also when it is met after the counter moved past it.
func TestNumberedNamesSkipTakenOnes(t *testing.T) {
	a := &Image{Where: []string{"x"}, TargetID: "a", Triple: "t"}
	a1 := &Image{Where: []string{"x"}, TargetID: "a.1", Triple: "t"}
	var n Namer
	var got []string
	for _, im := range []*Image{a, a1, a, a, a1} {
		got = append(got, n.Name("p", im))
	}
	want := []string{"p-t-a.bin", "p-t-a.1.bin", "p-t-a.2.bin", "p-t-a.3.bin", "p-t-a.1.1.bin"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("names %q, want %q", got, want)
	}
}

// BenchmarkNamesOfOneName names 20,000 images that all want one name.
func BenchmarkNamesOfOneName(b *testing.B) {
	im := &Image{Where: []string{"in.fatbin"}, OffloadKind: "cuda", Triple: "nvptx64-nvidia-cuda", TargetID: "sm_90", ImageKind: offloadbin.ImageCubin}
	ims := make([]*Image, 20000)
	for i := range ims {
		ims[i] = im
	}
	for b.Loop() {
		Names("", ims)
	}
}
