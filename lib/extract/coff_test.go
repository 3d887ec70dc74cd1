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

// coffWith lays out an x86-64 COFF object of the named sections (long
// names through the string table), each holding data; a nil data has no
// contents in the file (offset 0).
func coffWith(names []string, data [][]byte) []byte {
	le := binary.LittleEndian
	strtab := []byte{0, 0, 0, 0}
	b := make([]byte, 20+40*len(names))
	le.PutUint16(b, 0x8664)
	le.PutUint16(b[2:], uint16(len(names)))
	for i, n := range names {
		e := b[20+40*i:]
		copy(e[:8], n)
		if len(n) > 8 {
			copy(e[:8], fmt.Sprintf("/%d\x00\x00\x00\x00\x00\x00", len(strtab)))
			strtab = append(append(strtab, n...), 0)
		}
		le.PutUint32(e[16:], uint32(len(data[i])))
		if data[i] != nil {
			le.PutUint32(e[20:], uint32(len(b)))
			b = append(b, data[i]...)
		}
	}
	le.PutUint32(b[8:], uint32(len(b))) // no symbols, then the string table
	le.PutUint32(strtab, uint32(len(strtab)))
	return append(b, strtab...)
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
