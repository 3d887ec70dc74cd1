package cubin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead seeds from the CUDA 13 cubins: whatever the bytes, Read returns
// a target with an SM, or an error, and never panics.
func FuzzRead(f *testing.F) {
	names, _ := filepath.Glob("testdata/cuda13/*.cubin")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b), int64(len(b)))
		if err == nil && got.SM <= 0 {
			t.Errorf("no error, no SM: %+v", got)
		}
	})
}
