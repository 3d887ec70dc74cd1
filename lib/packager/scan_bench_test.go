package packager

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkScanArchive scans an archive of 1,000 ELF objects, each with
// one package of two images in an SHT_LLVM_OFFLOADING section: the
// walk's cost per member, not the images' bytes.
func BenchmarkScanArchive(b *testing.B) {
	two := append(packed(b, "one", "arch", "a"), packed(b, "two!", "arch", "b")...)
	obj := minimalELF(two, 0x6fff4c0b)
	members := map[string][]byte{}
	var order []string
	for i := range 1000 {
		n := fmt.Sprintf("m%d.o", i)
		members[n], order = obj, append(order, n)
	}
	lib := archive(b, members, order...)
	b.SetBytes(int64(len(lib)))
	b.ReportAllocs()
	for b.Loop() {
		found, err := Scan(bytes.NewReader(lib), int64(len(lib)), "lib.a")
		if err != nil || len(found) != 2000 {
			b.Fatalf("%d images, %v", len(found), err)
		}
	}
}
