package ccob

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

const benchSize = 32 << 20

// BenchmarkCompress compresses 32 MiB of semi-compressible data (ratio
// about 2) into a discarding WriteSeeker.
func BenchmarkCompress(b *testing.B) {
	data := semiCompressible(42, benchSize)
	for _, opt := range []WriterOptions{
		DefaultWriterOptions(),
		{Method: MethodZstd, Level: 1},
		{Method: MethodZstd, Level: 3, Concurrency: 1},
		{Method: MethodZlib},
	} {
		b.Run(fmt.Sprintf("%s-l%d-c%d", opt.Method, opt.Level, opt.Concurrency), func(b *testing.B) {
			b.SetBytes(benchSize)
			b.ReportAllocs()
			var h Header
			for b.Loop() {
				var err error
				if h, err = Compress(&seekDiscard{}, bytes.NewReader(data), benchSize, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchSize)/float64(h.TotalSize), "ratio")
		})
	}
}

// BenchmarkDecompress decompresses the same data to io.Discard, with and
// without the MD5 check (on its own goroutine; LLVM 22 does not check).
func BenchmarkDecompress(b *testing.B) {
	data := semiCompressible(42, benchSize)
	for _, m := range []Method{MethodZstd, MethodZlib} {
		c, _ := compress(b, data, WriterOptions{Method: m})
		for _, skip := range []bool{false, true} {
			name := m.String()
			if skip {
				name += "-nohash"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(benchSize)
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := Decompress(io.Discard, bytes.NewReader(c), int64(len(c)), ReaderOptions{SkipHashCheck: skip}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkHash is the MD5 every CCOB carries: the floor for compressing
// and checking a bundle, since MD5 cannot be split across cores.
func BenchmarkHash(b *testing.B) {
	data := semiCompressible(42, benchSize)
	b.SetBytes(benchSize)
	b.ReportAllocs()
	for b.Loop() {
		h := newAsyncMD5()
		h.Write(data)
		h.Sum()
	}
}
