package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCopy64MiB copies a 64 MiB file section into a new output: with
// ReadFrom at a page-congruent and at an odd offset, through the kernel
// (copy_file_range) directly, and through io.Copy's generic path (the
// section hidden behind a plain io.Reader) for comparison.
func BenchmarkCopy64MiB(b *testing.B) {
	const n = 64 << 20
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, make([]byte, n+4096), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name string
		copy func(out *File, off int64) error
		off  int64
	}{
		{"ReadFrom-aligned", readFrom(f, n, false), 4096},
		{"ReadFrom-odd", readFrom(f, n, false), 762},
		{"kernel", func(out *File, off int64) error { _, err := kernelCopy(out.File, f, off, n); return err }, 4096},
		{"generic", readFrom(f, n, true), 4096},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				out, err := Create(filepath.Join(dir, "out"))
				if err != nil {
					b.Fatal(err)
				}
				if err := tc.copy(out, tc.off); err != nil {
					b.Fatal(err)
				}
				out.Abort()
			}
		})
	}
}

func readFrom(f *os.File, n int64, generic bool) func(*File, int64) error {
	return func(out *File, off int64) error {
		var r io.Reader = io.NewSectionReader(f, off, n)
		if generic {
			r = struct{ io.Reader }{r}
		}
		_, err := io.Copy(out, r)
		return err
	}
}
