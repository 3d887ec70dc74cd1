package zstdexact

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkCompress compares fatbinary's two levels, 5 (default mode)
// and 19 (size mode, the optimal parser), on text-like sources of a
// cubin's size and of the largest the optimal parser takes.
func BenchmarkCompress(b *testing.B) {
	for _, n := range []int{8 << 10, 64 << 10} {
		in := genInput(rand.New(rand.NewSource(1)), n)
		for _, level := range []int{5, 19} {
			b.Run(fmt.Sprintf("%dKiB/level%d", n>>10, level), func(b *testing.B) {
				dst := make([]byte, 0, n+1024)
				b.SetBytes(int64(n))
				for i := 0; i < b.N; i++ {
					if _, err := Compress(dst, in, level); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
