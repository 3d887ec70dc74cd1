package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFrom copies a 64 MiB file section into an output: at a
// page-congruent offset (kernel copy), at an odd one (buffered copy), and
// through io.Copy's generic path for comparison (the section hidden behind
// a plain io.Reader).
func BenchmarkReadFrom(b *testing.B) {
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
		name    string
		off     int64
		generic bool
	}{{"aligned", 4096, false}, {"unaligned", 762, false}, {"generic", 4096, true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				out, err := Create(filepath.Join(dir, "out"))
				if err != nil {
					b.Fatal(err)
				}
				var r io.Reader = io.NewSectionReader(f, tc.off, n)
				if tc.generic {
					r = struct{ io.Reader }{r}
				}
				if _, err := io.Copy(out, r); err != nil {
					b.Fatal(err)
				}
				out.Abort()
			}
		})
	}
}
