package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// coffPackage is two OffloadBinaries back to back, as a package is.
func coffPackage(t testing.TB) []byte {
	var b bytes.Buffer
	for _, arch := range []string{"gfx906", "gfx90a:xnack+"} {
		img := "image for " + arch
		kv := []offloadbin.KV{{Key: "arch", Value: arch}, {Key: "triple", Value: "amdgcn-amd-amdhsa"}}
		if _, err := offloadbin.Write(&b, offloadbin.ImageObject, offloadbin.OffloadOpenMP, 0, kv, strings.NewReader(img), int64(len(img))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// coffWith lays out an x86-64 COFF object of the named sections, each
// holding data (nil: no contents in the file).
func coffWith(names []string, data [][]byte) []byte {
	secs := make([]hostile.COFFSection, len(names))
	for i, n := range names {
		secs[i] = hostile.COFFSection{Name: n, Data: data[i]}
	}
	b, _ := hostile.COFFObject(0x8664, 0, false, secs)
	return b
}

// The images of a COFF object's .llvm.offloading* sections are found, in
// section order; other sections are not searched.
func TestCOFFObject(t *testing.T) {
	pkg := coffPackage(t)
	obj := coffWith([]string{".text", ".llvm.offloading", ".llvm.offload", ".llvm.offloading$b", ".llvm.offloadingX"},
		[][]byte{{0xc3}, pkg, pkg, pkg, nil})
	ims, err := walkBytes(Options{}, obj)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range ims {
		b, _ := io.ReadAll(im.Open())
		got = append(got, fmt.Sprintf("%s|%s|%s|%s", strings.Join(im.Where, ": "), im.OffloadKind, im.TargetID, b))
	}
	want := []string{
		"in: .llvm.offloading: image 0|openmp|gfx906|image for gfx906",
		"in: .llvm.offloading: image 1|openmp|gfx90a:xnack+|image for gfx90a:xnack+",
		"in: .llvm.offloading$b: image 0|openmp|gfx906|image for gfx906",
		"in: .llvm.offloading$b: image 1|openmp|gfx90a:xnack+|image for gfx90a:xnack+",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("found\n%q\nwant\n%q", got, want)
	}
}

// A damaged COFF object stops the walk with an error that names the file
// and the defect. A section's contents are checked when the walk reaches
// it, so the images of the sections before it have been handed on (offload
// extract then writes none of them).
func TestCOFFDamaged(t *testing.T) {
	obj := coffWith([]string{".llvm.offloading", ".llvm.offloading$b"}, [][]byte{coffPackage(t), coffPackage(t)})
	past := bytes.Clone(obj)
	binary.LittleEndian.PutUint32(past[60+16:], uint32(len(obj)))
	badName := bytes.Clone(obj)
	copy(badName[60:], "/4x")
	for _, tc := range []struct {
		name, want string
		in         []byte
	}{
		{"section table", "in: COFF object: section table past end of file", obj[:80]},
		{"section data", "in: COFF object: section .llvm.offloading$b past end of file", past},
		{"section name", "in: COFF object: invalid section name", badName},
	} {
		ims, err := walkBytes(Options{}, tc.in)
		if err == nil || err.Error() != tc.want || !errors.Is(err, coffobj.ErrFormat) || tc.name == "section data" && len(ims) != 2 {
			t.Errorf("%s: %d images, %v; want %q", tc.name, len(ims), err, tc.want)
		}
	}
}
