package container

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// NVFatbin walks the entries of NVIDIA fat binaries (one, or several back
// to back as in a .nv_fatbin section) as FatbinEntry pieces named
// "entry N" with Fatbin set; Offset, Size and Data are the stored bytes
// (compressed ones when Fatbin.Compressed). Entries are read one at a
// time and never held (nvfatbin.Scan): a damaged one stops the walk after
// those before it were visited. Fatbin is valid during the visit only.
func NVFatbin(r io.ReaderAt, size int64, visit Visit) error {
	i := 0
	return nvfatbin.Scan(r, size, func(e *nvfatbin.Entry) error {
		p := Piece{Kind: FatbinEntry, Name: fmt.Sprintf("entry %d", i), Offset: e.Offset, Size: e.Size, Data: e.Open(r), Fatbin: e}
		i++
		return visit(p)
	})
}

// NVFatbinDeclared checks every entry of the fat binaries in the size
// bytes of r and sums the sizes their compressed entries declare, so that
// a caller can check them against its budget before inflating the first.
func NVFatbinDeclared(r io.ReaderAt, size int64) (uint64, error) {
	declared := uint64(0)
	err := nvfatbin.Scan(r, size, func(e *nvfatbin.Entry) error {
		if e.Compressed {
			declared += uint64(e.UncompressedSize)
		}
		return nil
	})
	return declared, err
}

// nvFatbinDeclared is NVFatbinDeclared as the format table's declared:
// what the entries before a damaged one declare.
func nvFatbinDeclared(r io.ReaderAt, size int64) uint64 {
	n, _ := NVFatbinDeclared(r, size)
	return n
}
